"""Java: Debian's ``default-jdk-headless`` (javac and java through /etc/alternatives).

The source file and the class run are named after the program's public class, or the class
declaring ``main`` (``Main`` when neither is found), as judges accept any name. The JVM reserves
large virtual ranges and starts its own threads: it is bounded by the sample's memory cgroup and
``-Xmx``, and gets 48 extra threads over ``processes``.
"""

from rlvr_code.languages.spec import Language

# The JDK's configuration is symlinked into /etc: those directories, and the alternatives that
# point /usr/bin/java at the JDK, are the only host files under /etc the sandbox sees.
_ETC = ("/etc/alternatives", "/etc/java-11-openjdk", "/etc/java-17-openjdk", "/etc/java-21-openjdk")

JAVA = Language(
    name="java",
    tags=frozenset({"java"}),
    source="Main.java",
    compile=("/usr/bin/javac", "-J-Xmx512m", "-J-XX:+UseSerialGC", "-encoding", "UTF-8", "-d", ".", "{src}"),
    run=("/usr/bin/java", "-Xmx256m", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", ".", "Main"),
    package="default-jdk-headless",
    tools=("/usr/bin/javac", "/usr/bin/java"),
    mounts=("/usr/bin", "/usr/lib", *_ETC),
    address_space=False,
    extra_processes=48,
    named_by_class=True,
)
