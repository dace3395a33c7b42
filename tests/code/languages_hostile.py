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

HOSTILE = {"c": C_HOSTILE, "cpp": CPP_HOSTILE, "javascript": JS_HOSTILE}
