"""Go: Debian's ``golang-go``, one ``package main`` file built with cgo off, in GOPATH mode.

The build cache lives in the compile step's ``/tmp`` and goes with it. The Go runtime reserves
large virtual ranges and starts its own threads: bounded by the memory cgroup, 16 extra threads.
"""

from rlvr_code.languages.spec import Language

GO = Language(
    name="go",
    tags=frozenset({"go", "golang"}),
    source="main.go",
    compile=("/usr/bin/go", "build", "-o", "main", "{src}"),
    run=("./main",),
    package="golang-go",
    tools=("/usr/bin/go",),
    mounts=("/usr/bin", "/usr/lib", "/usr/share/go", "/usr/share/go-1.19", "/usr/share/go-1.21", "/usr/share/go-1.22"),
    run_mounts=("/usr/lib",),
    env=(
        ("GOCACHE", "/tmp/go-cache"),
        ("GOPATH", "/tmp/go"),
        ("GO111MODULE", "off"),
        ("CGO_ENABLED", "0"),
        ("GOTOOLCHAIN", "local"),
        ("GOFLAGS", "-buildvcs=false"),
    ),
    address_space=False,
    extra_processes=16,
    compile_tmpfs_mb=256,
)
