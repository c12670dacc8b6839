"""web_fetch against a local http.server: Markdown, redirects, address checks, content types."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from iac_code.tools import web_fetch
from iac_code.tools.web_fetch import MAX_REDIRECTS, FetchRefused, WebFetchTool, check_peer, check_url

tool = WebFetchTool()

PAGE = b"""<!doctype html><html><head><title>VPC docs</title><style>p{color:red}</style>
<script>var tracking = 1;</script></head><body><h1>aws_vpc</h1>
<p>Provides a <a href="/vpc">VPC</a> resource.</p><ul><li>cidr_block</li><li>tags</li></ul></body></html>"""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output quiet
        pass

    def send(self, status: int, content_type: str, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str) -> None:
        self.send(302, "text/plain", b"moved", {"Location": location})

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlsplit(self.path).path  # a request through a proxy names the absolute URL
        if path == "/page":
            self.send(200, "text/html; charset=utf-8", PAGE)
        elif path == "/text":
            self.send(200, "text/plain", b"terraform {\n  required_version = \">= 1.5\"\n}\n")
        elif path == "/latin":
            self.send(200, "text/plain; charset=iso-8859-1", "café".encode("latin-1"))
        elif path == "/json":
            self.send(200, "application/json", b'{"version": "5.0.0"}')
        elif path == "/png":
            self.send(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
        elif path == "/missing":
            self.send(404, "text/plain", b"no such module")
        elif path.startswith("/hop/"):
            left = int(path.rsplit("/", 1)[1])
            self.redirect(f"/hop/{left - 1}" if left else "/text")
        elif path == "/loop":
            self.redirect("/loop")
        elif path == "/to-metadata":
            self.redirect("http://169.254.169.254/latest/meta-data/")
        elif path == "/big":
            self.send(200, "text/plain", b"x" * 300_000)
        else:
            self.send(404, "text/plain", b"?")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)  # shutdown() waits a poll (0.5 s by default)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def private_ok(ctx):
    ctx.allow_private_fetch = True
    return ctx


async def test_html_becomes_markdown(server, private_ok, call):
    result = await call(tool, url=f"{server}/page")
    assert not result.is_error
    assert result.output.startswith(f"URL: {server}/page\nStatus: 200 OK\nContent-Type: text/html\n\n")
    assert "# aws_vpc" in result.output
    assert "Provides a [VPC](/vpc) resource." in result.output
    assert "* cidr_block" in result.output
    assert "tracking" not in result.output and "color:red" not in result.output


async def test_text_and_json_come_back_as_they_are(server, private_ok, call):
    assert (await call(tool, url=f"{server}/text")).output.endswith('terraform {\n  required_version = ">= 1.5"\n}\n')
    assert (await call(tool, url=f"{server}/json")).output.endswith('{"version": "5.0.0"}')
    assert (await call(tool, url=f"{server}/latin")).output.endswith("café")


async def test_binary_content_and_http_errors_are_refused(server, private_ok, call):
    png = await call(tool, url=f"{server}/png")
    assert png.is_error and "image/png" in png.output
    missing = await call(tool, url=f"{server}/missing")
    assert missing.is_error and missing.output.startswith("HTTP 404 Not Found") and "no such module" in missing.output


async def test_redirects_are_followed_up_to_the_limit(server, private_ok, call):
    ok = await call(tool, url=f"{server}/hop/{MAX_REDIRECTS - 1}")
    assert not ok.is_error and ok.output.startswith(f"URL: {server}/text\n")
    too_many = await call(tool, url=f"{server}/hop/{MAX_REDIRECTS}")
    assert too_many.is_error and "Too many redirects" in too_many.output
    loop = await call(tool, url=f"{server}/loop")
    assert loop.is_error and "Too many redirects" in loop.output


async def test_a_redirect_to_another_host_is_reported_not_followed(server, ctx, call, monkeypatch):
    """Permissions are per host: the redirect to 169.254.169.254 is not requested; the model is told
    where it points, so fetching it is a call of its own that the gate decides on."""
    checked: list[str] = []

    async def only_the_test_server(url: str, allow_private: bool) -> None:
        checked.append(url)
        await check_url(url, url.startswith(server))

    def peer_of_the_test_server(response, allow_private: bool) -> None:
        check_peer(response, str(response.url).startswith(server))

    monkeypatch.setattr(web_fetch, "check_url", only_the_test_server)
    monkeypatch.setattr(web_fetch, "check_peer", peer_of_the_test_server)
    result = await call(tool, url=f"{server}/to-metadata")
    assert "redirects to http://169.254.169.254/latest/meta-data/, on another host" in result.output
    assert checked == [f"{server}/to-metadata"]
    same_host = await call(tool, url=f"{server}/hop/2")
    assert same_host.output.startswith(f"URL: {server}/text\n")
    assert checked[1:] == [f"{server}/hop/2", f"{server}/hop/1", f"{server}/hop/0", f"{server}/text"]


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://registry.terraform.io/v1/providers", "registry.terraform.io"),
        ("https://Registry.Terraform.IO.:443/x", "registry.terraform.io"),
        ("https://registry.terraform.io@evil.example/x", "evil.example"),
        ("http://127.0.0.1:8080/a", "127.0.0.1:8080"),
        ("http://bücher.example/", "xn--bcher-kva.example"),
        ("https://evil.example\\@registry.terraform.io/", None),
        ("file:///etc/passwd", None),
    ],
)
def test_the_host_a_rule_names_is_the_one_connected_to(url, host):
    assert web_fetch.fetch_host(url) == host


@pytest.fixture
def rebinding_dns(monkeypatch):
    """`rebind.test` answers a public address to the first lookup and 127.0.0.1 to later ones."""
    lookups: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kw):
        if host not in ("rebind.test", b"rebind.test"):
            return real(host, port, *args, **kw)
        lookups.append(host)
        address = "93.184.216.34" if len(lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    return lookups


async def test_a_host_that_rebinds_to_a_private_address_after_the_check_is_refused(server, rebinding_dns, call):
    """The address checked and the address connected to come from separate lookups; the peer of the
    connection is checked too, so a DNS answer that changes in between gets nothing back."""
    port = server.rsplit(":", 1)[1]
    result = await call(tool, url=f"http://rebind.test:{port}/text")
    assert len(rebinding_dns) == 2  # the check, then the connection
    assert result.is_error and "127.0.0.1" in result.output and "IAC_CODE_ALLOW_PRIVATE_FETCH" in result.output
    assert "required_version" not in result.output


async def test_private_addresses_are_refused_without_the_flag(server, call):
    result = await call(tool, url=f"{server}/page")
    assert result.is_error and "IAC_CODE_ALLOW_PRIVATE_FETCH" in result.output


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://224.0.0.1/",
    ],
)
async def test_check_url_refuses_non_global_addresses(url):
    with pytest.raises(FetchRefused):
        await check_url(url, allow_private=False)
    await check_url(url, allow_private=True)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://x", "http:///nohost"])
async def test_only_http_urls_with_a_host(url, call):
    result = await call(tool, url=url)
    assert result.is_error


async def test_a_public_address_passes_the_check():
    await check_url("https://93.184.216.34/", allow_private=False)  # an IP literal: no DNS lookup


async def test_max_length_cuts_the_text_and_says_so(server, private_ok, call):
    result = await call(tool, url=f"{server}/big", max_length=1_000)
    assert "x" * 1_000 + "\n\n[... 299,000 more characters not shown" in result.output


def test_title_kind_and_no_paths(ctx):
    params = tool.parse({"url": "https://registry.terraform.io/providers/hashicorp/aws"})
    assert tool.title(params) == "Fetch https://registry.terraform.io/providers/hashicorp/aws"
    assert tool.title(None) == "Fetch"
    assert tool.kind == "fetch" and tool.category == "read"
    assert tool.paths(params, ctx) == []


async def test_through_a_proxy_the_peer_is_the_proxy_and_is_not_checked(server, monkeypatch, call):
    """A proxied request's peer is the proxy (here on 127.0.0.1), so it is not checked; a request
    that goes direct (NO_PROXY, or no proxy for its scheme) has its peer checked as usual."""
    port = server.rsplit(":", 1)[1]
    lookups: dict[str, int] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port_, *args, **kw):  # the check sees a public address, a connection 127.0.0.1
        name = host.decode() if isinstance(host, bytes) else host
        if not name.endswith((".test", ".internal")):
            return real(host, port_, *args, **kw)
        lookups[name] = lookups.get(name, 0) + 1
        address = "93.184.216.34" if lookups[name] == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port_)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server)  # the test server doubles as the proxy
    monkeypatch.setenv("NO_PROXY", ".internal")
    proxied = await call(tool, url=f"http://registry.test:{port}/text")
    assert not proxied.is_error and "required_version" in proxied.output
    bypassed = await call(tool, url=f"http://docs.internal:{port}/text")
    assert bypassed.is_error and "127.0.0.1" in bypassed.output
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.setenv("HTTPS_PROXY", server)  # carries https only: an http URL goes direct
    direct = await call(tool, url=f"http://other.test:{port}/text")
    assert direct.is_error and "127.0.0.1" in direct.output
