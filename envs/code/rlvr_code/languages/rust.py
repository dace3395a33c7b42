"""Rust: Debian's ``rustc`` (``/usr/bin/rustc``; a rustup toolchain under root's home is not
readable by the sample's uid), edition 2021, optimised, linked by gcc."""

from rlvr_code.languages.spec import Language

RUST = Language(
    name="rust",
    tags=frozenset({"rust", "rs"}),
    source="main.rs",
    compile=(
        "/usr/bin/rustc",
        "--edition",
        "2021",
        "-O",
        "-C",
        "debuginfo=0",
        "-C",
        "linker=/usr/bin/gcc",
        "-o",
        "main",
        "{src}",
    ),
    run=("./main",),
    package="rustc",
    tools=("/usr/bin/rustc", "/usr/bin/gcc"),
    run_mounts=("/usr/lib",),
)
