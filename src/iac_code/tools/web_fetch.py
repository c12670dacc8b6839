"""`web_fetch`: fetch an http(s) URL and return its text, HTML converted to Markdown.

Permissions ask per host (PROTOCOL.md, Permissions: "Always allow fetches from `HOST`"); the hosts
of `DOCUMENTATION_HOSTS` are fetched without asking. A redirect to another host is not followed:
the result names its target, so fetching it is a call the permission gate decides on.

Limits: 5 redirects on the same host (each target checked like the first URL), 5 MB of body, 20 s per request
(10 s to connect), 60 s in all; the text returned is cut at `max_length` characters (default
50,000). Host names are resolved and every address is checked: loopback, private, link-local
and other non-global addresses are refused unless `allow_private_fetch` is set
(`IAC_CODE_ALLOW_PRIVATE_FETCH=1`). httpx looks the host up again to connect, so the address of
the connection is checked too (`check_peer`), before anything of the response is used: a host
whose DNS answer changes in between (DNS rebinding) gets its request, but nothing comes back.
Through a proxy from the environment the connection's address is the proxy's and is not checked.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
import urllib.request
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import Field

from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.files import SNIFF_BYTES, sniff_binary

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
MAX_BODY_BYTES = 5 << 20
DEFAULT_LENGTH = 50_000
MAX_LENGTH = 200_000
REQUEST_TIMEOUT = 20.0
CONNECT_TIMEOUT = 10.0
TOTAL_TIMEOUT = 60.0
USER_AGENT = "iac-code (web_fetch)"
_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript")


DOCUMENTATION_HOSTS = frozenset(
    {
        "registry.terraform.io", "developer.hashicorp.com", "registry.opentofu.org", "opentofu.org",
        "docs.aws.amazon.com", "help.aliyun.com", "www.alibabacloud.com", "learn.microsoft.com",
        "cloud.google.com", "kubernetes.io", "helm.sh", "artifacthub.io",
    }
)
"""Documentation hosts fetched without asking: the providers' and tools' reference docs, whose
servers keep what a request carries in their logs, out of a prompt-injected page's reach."""


def fetch_host(url: str) -> str | None:
    """The host a fetch of `url` reaches, as a rule names it: the lower-case host name, with the
    port when one is given (`registry.terraform.io`, `127.0.0.1:8080`); None for a URL that is not
    http(s), has no host, or holds characters URL parsers read differently (`\\`, spaces, controls)."""
    if any(c in url for c in "\\ \t") or not url.isprintable():
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return _named(parts.scheme, parts.hostname, port)


def _named(scheme: str, host: str, port: int | None) -> str:
    """A host as rules name it: lower case, IDNA-encoded (a look-alike name shows as `xn--…`),
    IPv6 in brackets, the port only when it is not the scheme's default."""
    host = host.rstrip(".").lower()
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        pass
    if ":" in host:
        host = f"[{host}]"
    return host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"


_DEFAULT_PORTS = {"http": 80, "https": 443}


class WebFetchInput(ToolInput):
    url: str = Field(min_length=1, description="The http:// or https:// URL to fetch.")
    max_length: int = Field(
        default=DEFAULT_LENGTH,
        ge=1_000,
        le=MAX_LENGTH,
        description=f"Most characters of text to return (default {DEFAULT_LENGTH:,}, at most {MAX_LENGTH:,}).",
    )


class FetchRefused(Exception):
    """The URL may not be fetched (scheme, host or address); the message says why."""


class WebFetchTool(Tool[WebFetchInput]):
    """Fetch a web page or text document over http(s); HTML comes back as Markdown."""

    name = "web_fetch"
    description = (
        "Fetch a web page or text document (e.g. provider documentation, a module README, a JSON "
        "API response) over http or https. HTML is converted to Markdown; other text is returned "
        "as is; binary content is refused. Redirects on the same host are followed (up to 5); a "
        "redirect to another host is reported, fetch its URL to follow it. Local and private "
        "network addresses are refused."
    )
    input_model = WebFetchInput
    kind = "fetch"
    category = "read"

    def title(self, params: WebFetchInput | None) -> str:
        return "Fetch" if params is None else f"Fetch {params.url}"

    async def run(self, params: WebFetchInput, ctx: ToolContext) -> ToolResult:
        import httpx  # deferred: start-up time

        try:
            async with asyncio.timeout(TOTAL_TIMEOUT):
                async with httpx.AsyncClient(
                    verify=tls_context(),
                    follow_redirects=False,
                    timeout=httpx.Timeout(REQUEST_TIMEOUT, connect=CONNECT_TIMEOUT),
                    headers={"User-Agent": USER_AGENT, "Accept": "text/html, text/markdown, text/plain, */*;q=0.5"},
                ) as client:
                    return await _fetch(client, params, ctx.allow_private_fetch)
        except FetchRefused as exc:
            return ToolResult.error(str(exc))
        except TimeoutError:
            return ToolResult.error(f"Fetching {params.url} took longer than {TOTAL_TIMEOUT:.0f} s; gave up.")
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
            return ToolResult.error(f"Fetching {params.url} failed: {type(exc).__name__}: {exc}")


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every fetch: httpx's default (`SSL_CERT_FILE`/`SSL_CERT_DIR`, else
    certifi's CA bundle), made once per process instead of once per fetch (each client made one
    for itself and one per proxy from the environment: ~46 ms of CPU each, reading the bundle)."""
    import httpx

    return httpx.create_ssl_context()


async def _fetch(client: httpx.AsyncClient, params: WebFetchInput, allow_private: bool) -> ToolResult:
    url = params.url
    host = fetch_host(url)
    for _ in range(MAX_REDIRECTS + 1):
        await check_url(url, allow_private)
        if host is None or _client_host(url) != host:  # the approved host is the one httpx connects to
            raise FetchRefused(f"Refused to fetch {url!r}: its host cannot be read unambiguously.")
        async with client.stream("GET", url) as response:
            check_peer(response, allow_private)
            if response.is_redirect and "location" in response.headers:
                url = str(response.url.join(response.headers["location"]))
                if fetch_host(url) != host:
                    return ToolResult(
                        output=f"{response.url} redirects to {url}, on another host, which web_fetch does not "
                        "follow by itself. Fetch that URL to read it (the user may be asked first)."
                    )
                continue
            body, truncated = await _read_body(response)
            return await _result(params, response, body, truncated)
    raise FetchRefused(f"Too many redirects (more than {MAX_REDIRECTS}) starting at {params.url}; last: {url}")


def _client_host(url: str) -> str:
    """`fetch_host` as httpx reads the URL."""
    import httpx

    parsed = httpx.URL(url)
    return _named(parsed.scheme, parsed.host, parsed.port)


async def check_url(url: str, allow_private: bool) -> None:
    """Raise `FetchRefused` unless `url` is http(s) with a host whose every address may be reached."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"Only http and https URLs can be fetched, not {url!r}.")
    host = parts.hostname
    if not host:
        raise FetchRefused(f"The URL {url!r} has no host.")
    if allow_private:
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise FetchRefused(f"The URL {url!r} has an invalid port.") from None
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchRefused(f"Cannot resolve {host}: {exc.strerror or exc}.") from None
    for info in infos:
        address = _address(str(info[4][0]))  # an AF_INET/AF_INET6 sockaddr's host: a str
        if _refused(address):
            raise FetchRefused(
                f"Refused to fetch {url}: {host} resolves to {address}, a local, private or reserved "
                "address. (Set IAC_CODE_ALLOW_PRIVATE_FETCH=1 to allow such addresses.)"
            )


def check_peer(response: httpx.Response, allow_private: bool) -> None:
    """Raise `FetchRefused` if `response` came over a direct connection to an address that
    `check_url` refuses (see the module docstring)."""
    if allow_private or _proxied(response.url):
        return
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if not peer:
        return
    address = _address(peer[0])
    if _refused(address):
        raise FetchRefused(
            f"Refused to fetch {response.url}: the connection went to {address}, a local, private or "
            "reserved address, although the host's address was checked just before (its DNS answer "
            "changed). (Set IAC_CODE_ALLOW_PRIVATE_FETCH=1 to allow such addresses.)"
        )


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IP address in `text` (an IPv6 zone is dropped; an IPv4-mapped IPv6 address is IPv4)."""
    address = ipaddress.ip_address(text.split("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _refused(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is loopback, private, link-local, multicast or otherwise not global."""
    return not address.is_global or address.is_multicast


def _proxied(url: httpx.URL) -> bool:
    """Whether httpx sends a request for `url` through a proxy from the environment
    (`HTTP(S)_PROXY`/`ALL_PROXY`, less `NO_PROXY`), as `httpx` reads it with `urllib`."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(url.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(url.host)


async def _read_body(response: httpx.Response) -> tuple[bytes, bool]:
    """Up to MAX_BODY_BYTES of the body, and whether there was more."""
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"".join(chunks)[:MAX_BODY_BYTES], True
    return b"".join(chunks), False


async def _result(params: WebFetchInput, response: httpx.Response, body: bytes, truncated: bool) -> ToolResult:
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    status = f"{response.status_code} {response.reason_phrase}".strip()
    textual = content_type.startswith("text/") or content_type in _TEXT_TYPES or content_type.endswith(("+json", "+xml"))
    if (content_type and not textual) or (not content_type and sniff_binary(body[:SNIFF_BYTES])):
        return ToolResult.error(
            f"{response.url} returned {content_type} content ({len(body):,} bytes{'+' if truncated else ''}), "
            "which is not text; web_fetch only returns text."
        )
    try:
        text = body.decode(response.charset_encoding or "utf-8", "replace")
    except LookupError:  # an unknown charset name
        text = body.decode("utf-8", "replace")
    if content_type in ("text/html", "application/xhtml+xml"):
        text = await asyncio.to_thread(_to_markdown, text)  # parsing a big page takes a while
    header = f"URL: {response.url}\nStatus: {status}\nContent-Type: {content_type or 'unknown'}\n\n"
    if len(text) > params.max_length:
        left = len(text) - params.max_length
        text = text[: params.max_length] + (
            f"\n\n[... {left:,} more characters not shown; raise max_length (at most {MAX_LENGTH:,}) to see more.]"
        )
    if truncated:
        text += f"\n\n[... the response is larger than {MAX_BODY_BYTES >> 20} MB; only the start was read.]"
    if response.is_error:
        return ToolResult.error(f"HTTP {status} from {response.url}\n\n{text}")
    return ToolResult(output=header + text)


def _to_markdown(html: str) -> str:
    from markdownify import markdownify  # deferred: start-up time

    markdown = markdownify(html, heading_style="ATX", escape_underscores=False)  # keep aws_vpc readable
    lines = [line.rstrip() for line in markdown.splitlines()]
    out: list[str] = []
    for line in lines:  # collapse runs of blank lines
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
