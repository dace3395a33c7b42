"""Stdio problems and their solutions in each language, for the languages' tests.

Each problem's cases are checked against a Python reference when the module loads, so a typo in
an expected output cannot pass as a language's bug. ``SOLUTIONS[language][problem]`` is a
canonical solution; ``WRONG[language]`` holds near-misses that must score 0.
"""

from __future__ import annotations

import random

P = 1_000_000_007


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % P
    return a


def _rng_numbers(seed: int, k: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(-(10**9), 10**9) for _ in range(k)]


def _prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))


def _dedupe(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


_SORT_INPUTS = [[3, 1, 2], [5], _rng_numbers(1, 200)]
_WORD_INPUTS = ["hello world\n", "  a  b\tc \n d\n", "\n", "one"]
_PRIME_INPUTS = [1, 2, 17, 21, 7919, 1_000_000_007]
_DEDUPE_INPUTS = ["a b a c b\n", "x\n", "q q q q\n"]
_DIGIT_INPUTS = [0, 7, 12345, 999_999_999_999]

PROBLEMS: dict[str, list[dict[str, str]]] = {
    "a_plus_b": [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in [(1, 2), (-5, 5), (10**12, 10**12 + 7)]],
    "sort_numbers": [
        {"input": f"{len(xs)}\n{' '.join(map(str, xs))}\n", "output": " ".join(map(str, sorted(xs))) + "\n"}
        for xs in _SORT_INPUTS
    ],
    "count_words": [{"input": text, "output": f"{len(text.split())}\n"} for text in _WORD_INPUTS],
    "fib_mod": [{"input": f"{n}\n", "output": f"{_fib(n)}\n"} for n in (0, 1, 10, 100_000)],
    # MBPP-style, translated to stdin/stdout: is a number prime (mbpp 605), remove duplicate words
    # keeping the first (mbpp 572's idea on words), the sum of a number's digits (mbpp 566).
    "is_prime": [{"input": f"{n}\n", "output": ("YES" if _prime(n) else "NO") + "\n"} for n in _PRIME_INPUTS],
    "dedupe_words": [{"input": text, "output": " ".join(_dedupe(text.split())) + "\n"} for text in _DEDUPE_INPUTS],
    "digit_sum": [{"input": f"{n}\n", "output": f"{sum(map(int, str(n)))}\n"} for n in _DIGIT_INPUTS],
}

C_SOLUTIONS = {
    "a_plus_b": '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}',
    "sort_numbers": """#include <stdio.h>
#include <stdlib.h>
static int cmp(const void*a,const void*b){long x=*(const long*)a,y=*(const long*)b;return (x>y)-(x<y);}
int main(void){int n;if(scanf("%d",&n)!=1)return 1;long*v=malloc(sizeof(long)*n);
for(int i=0;i<n;i++)scanf("%ld",&v[i]);qsort(v,n,sizeof(long),cmp);
for(int i=0;i<n;i++)printf(i?" %ld":"%ld",v[i]);printf("\\n");free(v);return 0;}""",
    "count_words": """#include <stdio.h>
#include <ctype.h>
int main(void){int c,in=0;long n=0;while((c=getchar())!=EOF){if(isspace(c))in=0;else if(!in){in=1;n++;}}
printf("%ld\\n",n);return 0;}""",
    "fib_mod": """#include <stdio.h>
int main(void){long n;scanf("%ld",&n);long long a=0,b=1;for(long i=0;i<n;i++){long long t=(a+b)%1000000007LL;a=b;b=t;}
printf("%lld\\n",a);return 0;}""",
    "is_prime": """#include <stdio.h>
int main(void){long long n;scanf("%lld",&n);int p=n>1;for(long long d=2;d*d<=n&&p;d++)if(n%d==0)p=0;
puts(p?"YES":"NO");return 0;}""",
    "dedupe_words": """#include <stdio.h>
#include <string.h>
char seen[1000][64];int k=0;
int main(void){char w[64];int first=1;while(scanf("%63s",w)==1){int dup=0;for(int i=0;i<k;i++)if(!strcmp(seen[i],w))dup=1;
if(!dup){strcpy(seen[k++],w);printf(first?"%s":" %s",w);first=0;}}printf("\\n");return 0;}""",
    "digit_sum": """#include <stdio.h>
int main(void){int c,s=0;while((c=getchar())!=EOF)if(c>='0'&&c<='9')s+=c-'0';printf("%d\\n",s);return 0;}""",
}

CPP_SOLUTIONS = {
    "a_plus_b": "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}",
    "sort_numbers": """#include <bits/stdc++.h>
int main(){int n;std::cin>>n;std::vector<long long> v(n);for(auto&x:v)std::cin>>x;std::sort(v.begin(),v.end());
for(int i=0;i<n;i++)std::cout<<(i?" ":"")<<v[i];std::cout<<"\\n";}""",
    "count_words": """#include <iostream>
#include <string>
int main(){std::string w;long n=0;while(std::cin>>w)n++;std::cout<<n<<"\\n";}""",
    "fib_mod": """#include <cstdio>
#include <cstdint>
int main(){long n;if(std::scanf("%ld",&n)!=1)return 1;std::uint64_t a=0,b=1;while(n--){auto t=(a+b)%1000000007ULL;a=b;b=t;}
std::printf("%llu\\n",(unsigned long long)a);}""",
    "is_prime": """#include <iostream>
int main(){long long n;std::cin>>n;bool p=n>1;for(long long d=2;d*d<=n&&p;++d)if(n%d==0)p=false;std::cout<<(p?"YES":"NO")<<"\\n";}""",
    "dedupe_words": """#include <iostream>
#include <string>
#include <unordered_set>
int main(){std::unordered_set<std::string> seen;std::string w;bool first=true;
while(std::cin>>w)if(seen.insert(w).second){std::cout<<(first?"":" ")<<w;first=false;}std::cout<<"\\n";}""",
    "digit_sum": """#include <iostream>
#include <string>
int main(){std::string s;std::cin>>s;int t=0;for(char c:s)t+=c-'0';std::cout<<t<<std::endl;}""",
}

JS_SOLUTIONS = {
    "a_plus_b": """const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(BigInt);
console.log((a + b).toString());""",
    "sort_numbers": """const t = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);
const v = t.slice(1, 1 + t[0]).sort((x, y) => x - y);
console.log(v.join(' '));""",
    "count_words": """const s = require('fs').readFileSync(0, 'utf8');
const w = s.split(/\\s+/).filter(x => x.length > 0);
process.stdout.write(w.length + '\\n');""",
    "fib_mod": """const n = Number(require('fs').readFileSync(0, 'utf8').trim());
let a = 0, b = 1;
for (let i = 0; i < n; i++) { const t = (a + b) % 1000000007; a = b; b = t; }
console.log(a);""",
    "is_prime": """const n = Number(require('fs').readFileSync(0, 'utf8').trim());
let p = n > 1;
for (let d = 2; d * d <= n && p; d++) if (n % d === 0) p = false;
console.log(p ? 'YES' : 'NO');""",
    "dedupe_words": """const w = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean);
console.log([...new Set(w)].join(' '));""",
    "digit_sum": """const s = require('fs').readFileSync(0, 'utf8').trim();
console.log([...s].reduce((t, c) => t + Number(c), 0));""",
}

GO_SOLUTIONS = {
    "a_plus_b": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}',
    "sort_numbers": """package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	var n int
	fmt.Fscan(r, &n)
	v := make([]int64, n)
	for i := range v {
		fmt.Fscan(r, &v[i])
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	parts := make([]string, n)
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	fmt.Println(strings.Join(parts, " "))
}""",
    "count_words": """package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	data, _ := io.ReadAll(os.Stdin)
	fmt.Println(len(strings.Fields(string(data))))
}""",
    "fib_mod": """package main

import "fmt"

func main() {
	var n int
	fmt.Scan(&n)
	var a, b int64 = 0, 1
	for i := 0; i < n; i++ {
		a, b = b, (a+b)%1000000007
	}
	fmt.Println(a)
}""",
}

RUST_SOLUTIONS = {
    "a_plus_b": """use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    println!("{}", v[0] + v[1]);
}""",
    "sort_numbers": """use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_whitespace().map(|x| x.parse::<i64>().unwrap());
    let n = it.next().unwrap() as usize;
    let mut v: Vec<i64> = it.take(n).collect();
    v.sort();
    let out: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    println!("{}", out.join(" "));
}""",
    "count_words": """use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    println!("{}", s.split_whitespace().count());
}""",
    "digit_sum": """fn main() {
    let mut s = String::new();
    std::io::stdin().read_line(&mut s).unwrap();
    let t: u32 = s.trim().chars().map(|c| c.to_digit(10).unwrap()).sum();
    println!("{}", t);
}""",
}

JAVA_SOLUTIONS = {
    "a_plus_b": """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(a + b);
    }
}""",
    "sort_numbers": """import java.io.*;
import java.util.*;
public class Main {
    public static void main(String[] args) throws IOException {
        String[] all = new String(System.in.readAllBytes()).trim().split("\\\\s+");
        int n = Integer.parseInt(all[0]);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = Long.parseLong(all[1 + i]);
        Arrays.sort(v);
        StringJoiner j = new StringJoiner(" ");
        for (long x : v) j.add(Long.toString(x));
        System.out.println(j);
    }
}""",
    "is_prime": """import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        long n = new Scanner(System.in).nextLong();
        boolean p = n > 1;
        for (long d = 2; d * d <= n && p; d++) if (n % d == 0) p = false;
        System.out.println(p ? "YES" : "NO");
    }
}""",
}

SOLUTIONS = {
    "c": C_SOLUTIONS,
    "cpp": CPP_SOLUTIONS,
    "javascript": JS_SOLUTIONS,
    "go": GO_SOLUTIONS,
    "rust": RUST_SOLUTIONS,
    "java": JAVA_SOLUTIONS,
}

# Near-misses: each fails at least one case of its problem.
WRONG = {
    "c": [
        (
            "a_plus_b",
            '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}',
        ),  # overflow
        (
            "sort_numbers",
            '#include <stdio.h>\nint main(void){int n;long x;scanf("%d",&n);for(int i=0;i<n;i++){scanf("%ld",&x);printf(i?" %ld":"%ld",x);}puts("");}',
        ),
        ("is_prime", '#include <stdio.h>\nint main(void){long n;scanf("%ld",&n);puts(n%2?"YES":"NO");}'),
    ],
    "cpp": [
        (
            "fib_mod",
            "#include <iostream>\nint main(){long n;std::cin>>n;long a=0,b=1;while(n--){long t=a+b;a=b;b=t;}std::cout<<a<<'\\n';}",
        ),
        (
            "count_words",
            "#include <iostream>\n#include <string>\nint main(){std::string l;long n=0;while(std::getline(std::cin,l))n++;std::cout<<n<<'\\n';}",
        ),
    ],
    "javascript": [
        (
            "sort_numbers",
            "const t=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/);console.log(t.slice(1).sort().join(' '));",
        ),
        ("a_plus_b", "const [a,b]=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/);console.log(a+b);"),
    ],
}

WRONG["go"] = [
    ("fib_mod", 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar n int\n\tfmt.Scan(&n)\n\tfmt.Println(n)\n}')
]
WRONG["rust"] = [("a_plus_b", 'fn main() { println!("3"); }')]
WRONG["java"] = [
    ("is_prime", 'public class Main { public static void main(String[] a) { System.out.println("YES"); } }')
]

COMPILE_ERRORS = {
    "c": '#include <stdio.h>\nint main(void){ printf("%d\\n", undefined_name); return 0; }',
    "cpp": "#include <vector>\nint main(){ std::vector<int> v = 3; }",
    "javascript": "const x = ;\nconsole.log(x);",
    "go": 'package main\n\nimport "fmt"\n\nfunc main() {}',  # an unused import does not build
    "rust": 'fn main() { let x: i32 = "no"; println!("{}", x); }',
    "java": 'public class Main { public static void main(String[] a) { int x = "no"; } }',
}

FENCE = {"c": "c", "cpp": "cpp", "javascript": "javascript", "go": "go", "rust": "rust", "java": "java"}


def fenced_in(language: str, code: str) -> str:
    return f"Here is my solution.\n\n```{FENCE[language]}\n{code}\n```\n"
