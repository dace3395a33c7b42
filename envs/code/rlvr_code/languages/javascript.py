"""JavaScript: Node.js from Debian's ``nodejs`` package, the source run as a CommonJS script."""

from rlvr_code.languages.spec import Language

JAVASCRIPT = Language(
    name="javascript",
    tags=frozenset({"javascript", "js", "node", "nodejs"}),
    source="main.js",
    compile=None,
    check=("/usr/bin/node", "--check", "{src}"),
    run=("/usr/bin/node", "--max-old-space-size=256", "--stack-size=8000", "{src}"),
    package="nodejs",
    tools=("/usr/bin/node",),
    mounts=("/usr/bin/node", "/usr/lib", "/usr/share/nodejs"),
    address_space=False,
    extra_processes=12,
)
