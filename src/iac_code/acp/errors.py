"""How an ACP request fails: the checks every handler shares and the errors they raise.

- A request before `initialize` is -32600 (PROTOCOL.md: `initialize` must be the first call).
- A bad parameter is -32602 with `data` naming the field: `{"cwd": "must be an absolute path"}`.
- Session storage that cannot be written is -32603 whose `data.reason` says what failed
  (PROTOCOL.md, Storage).
- An unexpected exception is -32603 with a short `errorId` that is also in the log, never a
  traceback (the server never dies on input).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import uuid
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from acp import RequestError

from iac_code.session_store.journal import StorageError

log = logging.getLogger(__name__)

class _Connection(Protocol):
    initialized: bool


A = TypeVar("A", bound=_Connection)
P = ParamSpec("P")
R = TypeVar("R")


def guarded(method: Callable[Concatenate[A, P], Coroutine[Any, Any, R]]) -> Callable[Concatenate[A, P], Coroutine[Any, Any, R]]:
    """Wrap an agent method: -32600 until the connection is initialized (except for `initialize`
    itself); an unexpected exception becomes -32603 with a short error id, logged with its traceback.

    The wrapped method's first argument is the agent, whose `initialized` says whether
    `initialize` was answered.
    """
    first_call = method.__name__ == "initialize"

    @functools.wraps(method)
    async def wrapper(agent: A, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if not (first_call or agent.initialized):
            raise RequestError.invalid_request({"details": "initialize must be the first call on a connection"})
        try:
            return await method(agent, *args, **kwargs)
        except (RequestError, asyncio.CancelledError):
            raise
        except StorageError as exc:  # PROTOCOL.md, Storage: say what failed, in plain words
            log.error("%s failed: %s", method.__name__, exc)
            raise RequestError.internal_error({"reason": str(exc)}) from None
        except Exception:
            error_id = uuid.uuid4().hex[:8]
            log.exception("internal error %s in %s", error_id, method.__name__)
            raise RequestError.internal_error({"errorId": error_id}) from None

    return wrapper


def invalid(field: str, message: str) -> RequestError:
    """-32602 (invalid params) whose data names the camelCase `field` with `message`."""
    return RequestError.invalid_params({field: message})


def check_cwd(cwd: str, *, must_exist: bool = True) -> str:
    """The normalised `cwd`; -32602 naming `cwd` unless it is absolute (and, with `must_exist`,
    an existing directory)."""
    if not os.path.isabs(cwd):
        raise invalid("cwd", f"must be an absolute path, got {cwd!r}")
    if must_exist and not os.path.isdir(cwd):
        raise invalid("cwd", f"no such directory: {cwd}")
    return os.path.normpath(cwd)
