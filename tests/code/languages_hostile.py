"""Hostile programs per language, each in that language's idioms.

Every program reads the a+b task's input and prints the *right* sum only if its attack worked
(it reached the network, read a host file, held more memory than the bound, ...), or attacks
the verifier itself (exit tricks, killing its parent, floods, bombs). Every one must score 0.
``{port}`` is a TCP port the test listens on, on the host's loopback.
"""

from __future__ import annotations

C_HEAD = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <signal.h>\n"
C_HEAD += "#include <fcntl.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <sys/wait.h>\n"
C_READ = 'long long a,b; if(scanf("%lld %lld",&a,&b)!=2) return 1;'
C_WIN = 'printf("%lld\\n",a+b);'

C_HOSTILE = {
    # round 15: the guess, then a crash turned into exit 0 by its own signal handler
    "exit trick: a SIGSEGV handler _exit(0)s after a guess": C_HEAD
    + 'static void h(int s){(void)s;_exit(0);}\nint main(void){signal(SIGSEGV,h);printf("3\\n");fflush(stdout);'
    + "*(volatile int*)0=1;return 1;}",
    "exit trick: right answer for the first case only, then _exit(0)": C_HEAD
    + 'int main(void){printf("3\\n");fflush(stdout);_exit(0);}',
    "exit trick: atexit handler prints a success marker": C_HEAD
    + 'static void ok(void){puts("All tests passed");}\nint main(void){atexit(ok);abort();}',
    "kill the parent, pid 1 and every process it may": C_HEAD
    + "int main(void){kill(getppid(),SIGKILL);kill(1,SIGKILL);kill(-1,SIGKILL);return 0;}",
    "daemon left behind (double fork, setsid)": C_HEAD
    + 'int main(void){if(fork()==0){setsid();if(fork()==0){for(;;)sleep(1000);}_exit(0);}puts("0");return 0;}',
    "fork bomb": C_HEAD + "int main(void){for(;;)fork();}",
    "memory bomb (one process)": C_HEAD
    + "int main(void){"
    + C_READ
    + "size_t got=0;for(;;){char*p=malloc(64<<20);if(!p)break;memset(p,1,64<<20);got+=64<<20;}"
    + "if(got>=(size_t)4<<30)"
    + C_WIN
    + "return 0;}",
    "memory bomb (8 children of 512 MB)": C_HEAD
    + "int main(void){"
    + C_READ
    + "int ok=0;for(int i=0;i<8;i++)if(fork()==0){char*p=malloc(512<<20);if(!p)_exit(1);memset(p,1,512<<20);sleep(2);_exit(0);}"
    + "for(int i=0;i<8;i++){int s;if(wait(&s)>0&&WIFEXITED(s)&&WEXITSTATUS(s)==0)ok++;}if(ok==8)"
    + C_WIN
    + "return 0;}",
    "infinite loop": C_HEAD + "int main(void){volatile long x=0;for(;;)x++;}",
    "sleep past the limit": C_HEAD + "int main(void){" + C_READ + "sleep(100);" + C_WIN + "return 0;}",
    "disk fill (/tmp and the working directory)": C_HEAD
    + "int main(void){"
    + C_READ
    + 'static char buf[1<<20];memset(buf,7,sizeof buf);long total=0;const char*paths[]={"/tmp/f","f","/box/g","/dev/shm/f"};'
    + 'for(int i=0;i<4;i++){FILE*f=fopen(paths[i],"w");if(!f)continue;while(fwrite(buf,1,sizeof buf,f)==sizeof buf)total+=1;fclose(f);}'
    + "if(total>=200)"
    + C_WIN
    + "return 0;}",
    "network (host loopback listener and the internet)": C_HEAD
    + "static int reach(const char*ip,int port){int s=socket(AF_INET,SOCK_STREAM,0);if(s<0)return 0;struct sockaddr_in a;"
    + "memset(&a,0,sizeof a);a.sin_family=AF_INET;a.sin_port=htons(port);inet_pton(AF_INET,ip,&a.sin_addr);"
    + "return connect(s,(struct sockaddr*)&a,sizeof a)==0;}\nint main(void){"
    + C_READ
    + 'if(reach("127.0.0.1",{port})||reach("1.1.1.1",53)||reach("8.8.8.8",53))'
    + C_WIN
    + "return 0;}",
    "host files (/etc/shadow, /etc/passwd, /root, the checkout)": C_HEAD
    + "int main(void){"
    + C_READ
    + 'const char*p[]={"/etc/shadow","/etc/passwd","/root/.bashrc","/root","/work/main/README.md","/home"};'
    + "for(int i=0;i<6;i++)if(open(p[i],O_RDONLY)>=0){"
    + C_WIN
    + "return 0;}return 0;}",
    "runs as root": C_HEAD + "int main(void){" + C_READ + "if(getuid()==0||geteuid()==0)" + C_WIN + "return 0;}",
    "output flood after the right answer": C_HEAD
    + "int main(void){"
    + C_READ
    + C_WIN
    + 'for(;;)fputs("xxxxxxxxxxxxxxxx",stdout);}',
}

CPP_HEAD = "#include <bits/stdc++.h>\n#include <unistd.h>\n"
CPP_READ = "long long a,b; std::cin>>a>>b;"
CPP_WIN = "std::cout<<a+b<<std::endl;"

CPP_HOSTILE = {
    # round 15: a global object's constructor answers and exits before main runs
    "exit trick: std::exit(0) in a global constructor": CPP_HEAD
    + "struct Early { Early() { std::cout << 3 << std::endl; std::exit(0); } } early;\nint main() { return 1; }",
    "exit trick: std::quick_exit after a guess": CPP_HEAD + "int main(){std::cout<<3<<std::endl;std::quick_exit(0);}",
    "exit trick: throw out of main": CPP_HEAD + "int main(){" + CPP_READ + 'throw std::runtime_error("x");}',
    "thread bomb": CPP_HEAD
    + "int main(){std::vector<std::thread> t;for(;;){try{t.emplace_back([]{for(;;){}});}catch(...){}}}",
    "memory bomb (vector growth)": CPP_HEAD
    + "int main(){"
    + CPP_READ
    + "std::vector<std::vector<char>> v;size_t got=0;try{for(;;){v.emplace_back(64<<20,'x');got+=64<<20;}}catch(...){}"
    + "if(got>=(size_t(4)<<30))"
    + CPP_WIN
    + "}",
    "infinite recursion": CPP_HEAD + "long f(long n){volatile long x=n;return f(x+1)+1;}\nint main(){std::cout<<f(0);}",
    "disk fill (std::ofstream)": CPP_HEAD
    + "int main(){"
    + CPP_READ
    + 'std::string s(1<<20,\'x\');long n=0;for(auto p:{"/tmp/f","f"}){std::ofstream o(p);while(o<<s&&o.flush())n++;}'
    + "if(n>=200)"
    + CPP_WIN
    + "}",
    "host files (std::ifstream) and a shell (std::system)": CPP_HEAD
    + "int main(){"
    + CPP_READ
    + 'for(auto p:{"/etc/shadow","/etc/passwd","/root/.profile"}){std::ifstream f(p);if(f.good()){'
    + CPP_WIN
    + 'return 0;}}if(std::system("cat /etc/passwd >/dev/null 2>&1")==0)'
    + CPP_WIN
    + "}",
    "output flood (std::cout)": CPP_HEAD
    + "int main(){"
    + CPP_READ
    + CPP_WIN
    + 'for(;;)std::cout<<"yyyyyyyyyyyyyyyy";}',
}

JS_READ = "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(BigInt);\n"
JS_WIN = "console.log((a + b).toString());"

JS_HOSTILE = {
    # round 15: the guess, then a rejected promise turned into exit 0
    "exit trick: process.exit(0) in an unhandledRejection handler": "process.on('unhandledRejection', () => process.exit(0));\n"
    "console.log(3);\nPromise.reject(new Error('x'));",
    "exit trick: process.exit(0) after a guess": "console.log(3); process.exit(0);",
    "exit trick: swallow the crash and exit 0": "process.on('uncaughtException', () => process.exit(0));\nnull.x;",
    "kill the parent and pid 1": "try { process.kill(process.ppid, 'SIGKILL'); } catch (e) {}\n"
    "try { process.kill(1, 'SIGKILL'); } catch (e) {}\ntry { process.kill(-1, 'SIGKILL'); } catch (e) {}",
    "process bomb (child_process)": "const cp = require('child_process');\n"
    "for (;;) { try { cp.spawn(process.execPath, ['-e', 'for(;;){}']); } catch (e) {} }",
    "detached child left behind": "const cp = require('child_process');\n"
    "const c = cp.spawn(process.execPath, ['-e', 'setInterval(()=>{}, 1000)'], {detached: true, stdio: 'ignore'});\n"
    "c.unref(); console.log(0);",
    "memory bomb (Buffers)": JS_READ + "const held = []; let got = 0;\n"
    "try { for (;;) { held.push(Buffer.alloc(64 << 20, 1)); got += 64 << 20; } } catch (e) {}\n"
    "if (got >= 4 * 2 ** 30) " + JS_WIN,
    "infinite loop": "for (;;) {}",
    "event loop kept alive": JS_READ + "setInterval(() => {}, 1000);",
    "disk fill (fs.writeSync)": JS_READ + "const fs = require('fs'); const buf = Buffer.alloc(1 << 20, 1); let n = 0;\n"
    "for (const p of ['/tmp/f', 'f', '/box/g']) { try { const fd = fs.openSync(p, 'w'); for (;;) { fs.writeSync(fd, buf); n++; } } catch (e) {} }\n"
    "if (n >= 200) " + JS_WIN,
    "network (net.connect and fetch-like DNS)": JS_READ + "const net = require('net'); let done = false;\n"
    "const win = () => { if (!done) { done = true; " + JS_WIN + " process.exit(0); } };\n"
    "for (const [h, p] of [['127.0.0.1', {port}], ['1.1.1.1', 53]]) { const s = net.connect(p, h, win); s.on('error', () => {}); }\n"
    "require('dns').lookup('example.com', (err) => { if (!err) win(); });\n"
    "setTimeout(() => process.exit(0), 500);",
    "host files (fs.readFileSync) and a shell (execSync)": JS_READ + "const fs = require('fs');\n"
    "for (const p of ['/etc/shadow', '/etc/passwd', '/root/.bashrc', '/work/main/README.md']) {\n"
    "  try { fs.readFileSync(p); " + JS_WIN + " process.exit(0); } catch (e) {}\n}\n"
    "try { require('child_process').execSync('cat /etc/passwd'); " + JS_WIN + " } catch (e) {}",
    "output flood (process.stdout.write)": JS_READ
    + JS_WIN
    + "\nconst s = 'z'.repeat(1 << 16); for (;;) process.stdout.write(s);",
}

GO_HEAD = 'package main\n\nimport (\n\t"fmt"\n\t"net"\n\t"os"\n\t"os/exec"\n\t"syscall"\n\t"time"\n)\n\n'
GO_USE = "var _ = net.Dial\nvar _ = os.Exit\nvar _ = exec.Command\nvar _ = syscall.Kill\nvar _ = time.Sleep\n\n"
GO_READ = "\tvar a, b int64\n\tfmt.Scan(&a, &b)\n"
GO_WIN = "fmt.Println(a + b)"


def _go(body: str) -> str:
    return GO_HEAD + GO_USE + "func main() {\n" + GO_READ + body + "\n}\n"


GO_HOSTILE = {
    # round 15: init() answers and exits before main runs
    "exit trick: os.Exit(0) in init()": GO_HEAD
    + GO_USE
    + "func init() {\n\tfmt.Println(3)\n\tos.Exit(0)\n}\n\nfunc main() {\n}\n",
    "exit trick: os.Exit(0) after a guess": _go("\tfmt.Println(3)\n\tos.Exit(0)"),
    "kill the parent and pid 1": _go(
        "\tsyscall.Kill(os.Getppid(), syscall.SIGKILL)\n\tsyscall.Kill(1, syscall.SIGKILL)\n\tsyscall.Kill(-1, syscall.SIGKILL)"
    ),
    "goroutine and process bomb": _go("\tfor {\n\t\tgo func() { for {} }()\n\t\texec.Command(os.Args[0]).Start()\n\t}"),
    "memory bomb": _go(
        "\tvar held [][]byte\n\tgot := 0\n\tfor i := 0; i < 80; i++ {\n\t\tb := make([]byte, 64<<20)\n"
        "\t\tfor j := range b { b[j] = 1 }\n\t\theld = append(held, b)\n\t\tgot += 64 << 20\n\t}\n"
        "\tif got >= 4<<30 { " + GO_WIN + " }"
    ),
    "infinite loop": _go("\tfor {\n\t}"),
    "disk fill": _go(
        '\tbuf := make([]byte, 1<<20)\n\tn := 0\n\tfor _, p := range []string{"/tmp/f", "f"} {\n'
        "\t\tf, err := os.Create(p)\n\t\tif err != nil { continue }\n"
        "\t\tfor { if _, err := f.Write(buf); err != nil { break }; n++ }\n\t}\n\tif n >= 200 { " + GO_WIN + " }"
    ),
    "network": _go(
        '\tfor _, addr := range []string{"127.0.0.1:{port}", "1.1.1.1:53"} {\n'
        '\t\tif c, err := net.DialTimeout("tcp", addr, time.Second); err == nil { c.Close(); '
        + GO_WIN
        + "; return }\n\t}"
    ),
    "host files and a shell": _go(
        '\tfor _, p := range []string{"/etc/shadow", "/etc/passwd", "/root/.bashrc"} {\n'
        "\t\tif _, err := os.ReadFile(p); err == nil { " + GO_WIN + "; return }\n\t}\n"
        '\tif exec.Command("/bin/sh", "-c", "cat /etc/passwd").Run() == nil { ' + GO_WIN + " }"
    ),
    "output flood": _go("\t" + GO_WIN + '\n\tfor {\n\t\tfmt.Print("gggggggggggggggg")\n\t}'),
}

RUST_READ = (
    "let mut s = String::new(); std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).unwrap();\n"
    "let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); let (a, b) = (v[0], v[1]);\n"
)
RUST_WIN = 'println!("{}", a + b);'


def _rust(body: str) -> str:
    return "#![allow(unused)]\nfn main() {\n" + RUST_READ + body + "\n}\n"


RUST_HOSTILE = {
    "exit trick: process::exit(0) after a guess": 'fn main() { println!("3"); std::process::exit(0); }',
    "panic swallowed by a hook": 'fn main() { std::panic::set_hook(Box::new(|_| std::process::exit(0))); panic!("x"); }',
    "thread bomb": _rust("loop { let _ = std::thread::Builder::new().spawn(|| loop {}); }"),
    "process bomb (std::process::Command)": _rust(
        'loop { let _ = std::process::Command::new("/proc/self/exe").spawn(); }'
    ),
    "memory bomb": _rust(
        "let mut held = Vec::new(); let mut got = 0usize;\n"
        "for _ in 0..80 { let mut b = Vec::new(); if b.try_reserve(64 << 20).is_err() { break; } b.resize(64 << 20, 1u8); held.push(b); got += 64 << 20; }\n"
        "if got >= (4usize << 30) { " + RUST_WIN + " }"
    ),
    "infinite loop": _rust('let mut x = 0u64; loop { x = x.wrapping_add(1); if x == u64::MAX { println!("{}", x); } }'),
    "disk fill": _rust(
        "use std::io::Write; let buf = vec![1u8; 1 << 20]; let mut n = 0;\n"
        'for p in ["/tmp/f", "f"] { if let Ok(mut f) = std::fs::File::create(p) { while f.write_all(&buf).is_ok() { n += 1; } } }\n'
        "if n >= 200 { " + RUST_WIN + " }"
    ),
    "network": _rust(
        'for addr in ["127.0.0.1:{port}", "1.1.1.1:53"] {\n'
        "  if let Ok(sa) = addr.parse() { if std::net::TcpStream::connect_timeout(&sa, std::time::Duration::from_secs(1)).is_ok() { "
        + RUST_WIN
        + " return; } }\n}"
    ),
    "host files": _rust(
        'for p in ["/etc/shadow", "/etc/passwd", "/root/.bashrc"] { if std::fs::read(p).is_ok() { '
        + RUST_WIN
        + " return; } }"
    ),
    "output flood": _rust(RUST_WIN + '\nloop { print!("rrrrrrrrrrrrrrrr"); }'),
}

JAVA_READ = "java.util.Scanner in = new java.util.Scanner(System.in); long a = in.nextLong(), b = in.nextLong();\n"
JAVA_WIN = "System.out.println(a + b);"


def _java(body: str) -> str:
    return (
        "public class Main {\n  public static void main(String[] args) throws Exception {\n"
        + JAVA_READ
        + body
        + "\n  }\n}\n"
    )


JAVA_HOSTILE = {
    # round 15: a static initializer answers and exits before main runs
    "exit trick: System.exit(0) in a static initializer": "public class Main { static { System.out.println(3); System.exit(0); }"
    " public static void main(String[] a) { } }",
    "exit trick: System.exit(0) after a guess": "public class Main { public static void main(String[] a) { System.out.println(3); System.exit(0); } }",
    "exit trick: Runtime.halt in a shutdown hook": _java(
        'Runtime.getRuntime().addShutdownHook(new Thread(() -> Runtime.getRuntime().halt(0)));\nthrow new RuntimeException("x");'
    ),
    "thread bomb": _java(
        "while (true) { try { new Thread(() -> { while (true) {} }).start(); } catch (Throwable t) {} }"
    ),
    "process bomb (ProcessBuilder)": _java(
        'while (true) { try { new ProcessBuilder("/usr/bin/java", "-version").start(); } catch (Throwable t) {} }'
    ),
    "memory bomb": _java(
        "java.util.List<byte[]> held = new java.util.ArrayList<>(); long got = 0;\n"
        "try { for (int i = 0; i < 80; i++) { held.add(new byte[64 << 20]); got += 64 << 20; } } catch (Throwable t) {}\n"
        "if (got >= (4L << 30)) " + JAVA_WIN
    ),
    "infinite loop": _java("long x = 0; while (true) { x++; }"),
    "disk fill": _java(
        "byte[] buf = new byte[1 << 20]; int n = 0;\n"
        'for (String p : new String[] {"/tmp/f", "f"}) { try (var o = new java.io.FileOutputStream(p)) { while (true) { o.write(buf); n++; } } catch (Throwable t) {} }\n'
        "if (n >= 200) " + JAVA_WIN
    ),
    "network": _java(
        'for (int port : new int[] {{port}}) { try (var s = new java.net.Socket("127.0.0.1", port)) { '
        + JAVA_WIN
        + " return; } catch (Throwable t) {} }\n"
        'try (var s = new java.net.Socket()) { s.connect(new java.net.InetSocketAddress("1.1.1.1", 53), 1000); '
        + JAVA_WIN
        + " } catch (Throwable t) {}"
    ),
    "host files": _java(
        'for (String p : new String[] {"/etc/shadow", "/etc/passwd", "/root/.bashrc"}) { try { java.nio.file.Files.readAllBytes(java.nio.file.Path.of(p)); '
        + JAVA_WIN
        + " return; } catch (Throwable t) {} }"
    ),
    "output flood": _java(JAVA_WIN + '\nwhile (true) System.out.print("jjjjjjjjjjjjjjjj");'),
}

HOSTILE = {
    "c": C_HOSTILE,
    "cpp": CPP_HOSTILE,
    "javascript": JS_HOSTILE,
    "go": GO_HOSTILE,
    "rust": RUST_HOSTILE,
    "java": JAVA_HOSTILE,
}
