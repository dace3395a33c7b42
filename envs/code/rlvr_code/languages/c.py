"""C: gcc from Debian's ``gcc`` package, C17 with optimisation, linked statically against nothing."""

from rlvr_code.languages.spec import Language

C = Language(
    name="c",
    tags=frozenset({"c", "h"}),
    source="main.c",
    compile=("/usr/bin/gcc", "-std=gnu17", "-O2", "-pipe", "-o", "main", "{src}", "-lm"),
    run=("./main",),
    package="gcc",
    tools=("/usr/bin/gcc",),
    run_mounts=("/usr/lib",),
)
