"""C++: g++ from Debian's ``g++`` package, C++17 with optimisation."""

from rlvr_code.languages.spec import Language

CPP = Language(
    name="cpp",
    tags=frozenset({"cpp", "c++", "cxx", "cc", "hpp"}),
    source="main.cpp",
    compile=("/usr/bin/g++", "-std=gnu++17", "-O2", "-pipe", "-o", "main", "{src}"),
    run=("./main",),
    package="g++",
    tools=("/usr/bin/g++",),
    run_mounts=("/usr/lib",),
)
