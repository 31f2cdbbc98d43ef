"""``/`` leads to the docs; ``/docs`` and ``/redoc`` load nothing from another host."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

_ASSET = re.compile(
    r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']|\burl\s*:\s*['"]([^'"]+)['"]"""
)


def assets(html: str) -> list[str]:
    """Every script, stylesheet, icon and spec URL a page names."""
    return [a or b for a, b in _ASSET.findall(html)]


def test_root_redirects_to_the_docs(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code in {302, 307}
    assert response.headers["location"] == "/docs"
    assert client.get("/").url.path == "/docs"


@pytest.mark.parametrize(
    ("page", "needed"),
    [
        ("/docs", {"swagger-ui-bundle.js", "swagger-ui.css"}),
        ("/redoc", {"redoc.standalone.js"}),
    ],
)
def test_docs_pages_are_served_by_the_app_itself(
    client: TestClient, page: str, needed: set[str]
) -> None:
    response = client.get(page)
    assert response.status_code == 200
    urls = assets(response.text)
    assert needed <= {url.rsplit("/", 1)[-1] for url in urls}
    assert "/openapi.json" in urls
    for url in urls:
        parts = urlsplit(url)
        assert not parts.scheme, f"{page} loads {url} from another host"
        assert not parts.netloc, f"{page} loads {url} from another host"
        fetched = client.get(url)
        assert fetched.status_code == 200, url
        assert fetched.content
    assert not re.findall(r"(?:https?:)?//[\w.-]+", response.text)  # no host is named at all


def test_an_asset_that_is_not_there_is_a_problem(client: TestClient) -> None:
    response = client.get("/docs/static/nothing.js")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
