"""Cookies and web storage (`browser_get_storage`, `browser_set_storage`), in the shape of
Playwright's storage state: `{"cookies": [...], "origins": [{"origin", "localStorage",
"sessionStorage"}]}`. An origin's storage is set while a page of that origin is open."""

from __future__ import annotations

from typing import Any

from openhands.tools.browser_use.session import BrowserActionError, BrowserSession
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["read_storage", "write_storage"]

_DUMP = (
    "(() => { const dump = (s) => { try { return Object.keys(s).map((k) => "
    "({name: k, value: s.getItem(k)})); } catch (e) { return []; } }; "
    "return {origin: location.origin, localStorage: dump(localStorage), "
    "sessionStorage: dump(sessionStorage)}; })()"
)


class _Item(BaseModel):
    name: str
    value: str


class _Origin(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    origin: str
    local: list[_Item] = Field(default_factory=list, alias="localStorage")
    session: list[_Item] = Field(default_factory=list, alias="sessionStorage")


class _State(BaseModel):
    cookies: list[dict[str, Any]] = Field(default_factory=list)
    origins: list[_Origin] = Field(default_factory=list)


def read_storage(page: BrowserSession) -> dict[str, Any]:
    """Cookies of every site, and the current page's local and session storage."""
    cookies = page.cdp.call("Storage.getCookies")["cookies"]
    origin = page.evaluate(_DUMP)
    origins = [origin] if origin["origin"] not in ("null", "") else []
    return {"cookies": cookies, "origins": origins}


def write_storage(page: BrowserSession, state: dict[str, Any]) -> str:
    """Set the cookies, and the storage of the current page's origin; what was set."""
    try:
        wanted = _State.model_validate(state)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise BrowserActionError(f"storage_state does not fit ({problems}).") from None
    if wanted.cookies:
        page.cdp.call("Storage.setCookies", {"cookies": wanted.cookies})
    here = page.evaluate("location.origin")
    applied, skipped = 0, []
    for entry in wanted.origins:
        if entry.origin != here:
            skipped.append(entry.origin)
            continue
        for kind, items in (("localStorage", entry.local), ("sessionStorage", entry.session)):
            for item in items:
                page.call_function(
                    f"function (k, v) {{ {kind}.setItem(k, v); }}", item.name, item.value
                )
                applied += 1
    note = f"Set {len(wanted.cookies)} cookie(s) and {applied} storage item(s)."
    if skipped:
        note += (
            f" Storage for {', '.join(skipped)} was not set: navigate to that origin first "
            f"(the current page is {here})."
        )
    return note
