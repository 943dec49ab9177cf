"""httpx, loaded for a library's needs, and the process's one client for native requests.

Two start-up costs of httpx are not the SDK's to pay, and a fresh process's first completion
(a script, a CLI run) would pay both:

- `import httpx` also imports `httpx._main`, the `httpx` command line, which loads click,
  rich and pygments (about two thirds of httpx's import time and much of its memory), and
  httpcore imports `h2` for HTTP/2 when it is installed (its classes take tens of ms to
  build). The SDK uses neither: `import_httpx` imports httpx while both are unavailable,
  then makes them available again (only `httpx.main` and `httpcore.HTTP2Connection` are the
  "not installed" stand-ins; `import httpx._main` or an HTTP/2 connection later still get
  the real modules).
- `httpx.Client()` builds a TLS context and reads the CA bundle at once, tens of ms even for
  a model on `http://127.0.0.1`. `http_client` builds its TLS transport on the first
  `https://` request instead (unless a proxy is configured from the environment, which
  httpx sets up itself).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

LIMITS = {"max_connections": 1000, "max_keepalive_connections": 100}
"""Connection pool bounds of the client (per process; many conversations share it)."""

_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
_client: httpx.Client | None = None
_client_lock = threading.Lock()


def import_httpx() -> types.ModuleType:
    """The httpx module, imported without its command line and HTTP/2 if not imported yet."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        import httpx

        return httpx
    stub = types.ModuleType("httpx._main")

    def main() -> None:
        from openhands.sdk.errors import InvalidStateError

        raise InvalidStateError(
            "httpx's command line was not loaded in this process; run `httpx` on its own"
        )

    stub.main = main  # type: ignore[attr-defined]
    with _hidden({"httpx._main": stub}):
        import httpx

        return httpx


@contextlib.contextmanager
def _hidden(placeholders: dict[str, Any]) -> Iterator[None]:
    """`sys.modules` holds `placeholders` (and `h2` is unimportable, unless httpcore is
    loaded already) meanwhile; afterwards the real modules can be imported again."""
    hidden = dict(placeholders)
    if "httpcore" not in sys.modules and "h2" not in sys.modules:
        hidden["h2"] = None  # `import h2` fails: httpcore then leaves HTTP/2 out
    sys.modules.update(hidden)
    try:
        yield
    finally:
        for name, placeholder in hidden.items():
            if name in sys.modules and sys.modules[name] is placeholder:
                del sys.modules[name]


def http_client() -> httpx.Client:
    """The process's client for native requests (created on first use, thread-safe)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = _new_client()
    return _client


def _new_client() -> httpx.Client:
    module: Any = import_httpx()
    with _hidden({}):  # the client imports httpcore
        return _build_client(module)


def _build_client(module: Any) -> httpx.Client:
    limits = module.Limits(**LIMITS)
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return module.Client(follow_redirects=True, limits=limits)
    # Plain http needs no TLS context; https goes to a transport that builds one when used.
    return module.Client(
        verify=False,
        follow_redirects=True,
        limits=limits,
        mounts={"https://": _LazyTLSTransport(module, limits)},
    )


def _forget_client() -> None:
    # A forked child must not share the parent's connections.
    global _client
    _client = None


os.register_at_fork(after_in_child=_forget_client)


class _LazyTLSTransport:
    """An httpx transport for https URLs that creates its verifying transport when first used."""

    def __init__(self, module: Any, limits: Any) -> None:
        self._module = module
        self._limits = limits
        self._real: Any = None
        self._lock = threading.Lock()

    def _transport(self) -> Any:
        if self._real is None:
            with self._lock:
                if self._real is None:
                    self._real = self._module.HTTPTransport(verify=True, limits=self._limits)
        return self._real

    def handle_request(self, request: Any) -> Any:
        """Send `request` over TLS (certificates verified against the CA bundle)."""
        return self._transport().handle_request(request)

    def close(self) -> None:
        """Close the TLS connections, if any were opened."""
        if self._real is not None:
            self._real.close()

    def __enter__(self) -> _LazyTLSTransport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["LIMITS", "http_client", "import_httpx"]
