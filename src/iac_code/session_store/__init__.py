"""Session persistence: histories and metadata under `<config dir>/sessions/`."""

from iac_code.session_store.store import SessionMeta, SessionNotFound, SessionStore

__all__ = ["SessionMeta", "SessionNotFound", "SessionStore"]
