"""Screenshots of every app page in headless Chromium (``make screenshots``).

Starts the Streamlit app on a free 127.0.0.1 port against a temporary data folder with
the demo sources loaded, opens each page in Debian's ``chromium`` driven by Playwright
(``executable_path``: Playwright downloads no browser), runs a search, a summary and the
Evaluation page's live sample, and saves one PNG per page. Exits non-zero when a page
does not show its content, so this is also the real-browser check of the app.

    .venv/bin/python scripts/screenshots.py --out docs/screenshots
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUERY = "what classes are you taking in college"
LIVE_QUERIES = 10  # of each STS-B set, the page's default sample (fewer: quicker to embed)
TIMEOUT_MS = 180_000


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def load_demo(data_dir: Path) -> None:
    """Import the demo sources into ``data_dir``; vectors are made lazily by the pages.

    Vectors of the dev sets already cached under ``./data/cache`` are copied along, so
    the Evaluation page need not embed them again.
    """
    from toolkit import Lab, Workspace

    with Lab(Workspace.open(data_dir)) as ws:
        print(ws.load_demo(embed=False).to_pandas().to_string(index=False))
    cached = sorted((ROOT / "data" / "cache").glob("eval-*.npz"))
    if cached:
        (data_dir / "cache").mkdir(exist_ok=True)
        for path in cached:
            shutil.copy2(path, data_dir / "cache" / path.name)


@contextmanager
def running_app(data_dir: Path, port: int) -> Iterator[str]:
    """The app served by ``streamlit run`` until the block ends; yields its base URL."""
    env = {**os.environ, "MLENS_DATA_DIR": str(data_dir)}
    command = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app_streamlit.py"),
        "--server.address", "127.0.0.1", "--server.port", str(port),
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    log = (data_dir / "streamlit.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the app did not start; see " + str(log.name)) from None
                time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def settle(page: Page) -> None:
    """Wait until the script run has finished (Streamlit's 'running' widget is gone)."""
    page.wait_for_timeout(500)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=TIMEOUT_MS)
    page.wait_for_timeout(800)


def shoot(page: Page, out: Path, name: str) -> Path:
    """Save a PNG of the page's main area."""
    path = out / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"saved {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return path


def take(base: str, out: Path, chromium: str) -> list[Path]:
    """Open every page, drive a search and a summary, and save the screenshots."""
    saved = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1300})
        page.set_default_timeout(TIMEOUT_MS)

        page.goto(f"{base}/")
        page.get_by_text("Sources in the store").wait_for()
        settle(page)
        page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
        page.get_by_text("Import a Telegram Desktop export").click()  # show the uploader
        page.get_by_role("button", name="Import", exact=True).wait_for()
        page.wait_for_timeout(1000)  # the expander's opening animation
        saved.append(shoot(page, out, "sources"))

        page.goto(f"{base}/search")
        query = page.get_by_label("Query")
        query.fill(QUERY)
        query.press("Enter")
        page.get_by_text("score").first.wait_for()
        settle(page)
        saved.append(shoot(page, out, "search"))

        page.goto(f"{base}/summaries")
        page.get_by_role("button", name="Summarise").click()
        page.get_by_text("Important messages").wait_for()
        settle(page)
        saved.append(shoot(page, out, "summaries"))

        page.goto(f"{base}/schedules")
        page.get_by_text("Digest schedules").wait_for()
        page.get_by_text("Add an alert").wait_for()
        settle(page)
        saved.append(shoot(page, out, "schedules"))

        page.goto(f"{base}/evaluation")
        page.get_by_text("Ranking quality").first.wait_for()  # published: no click needed
        page.locator('[data-testid="stImage"] img').first.wait_for()
        settle(page)
        saved.append(shoot(page, out, "evaluation"))

        page.get_by_role("tab", name="Run live on a sample").click()
        queries = page.get_by_label("Queries per set (0: all)", exact=True).and_(
            page.locator("input")
        )
        queries.fill(str(LIVE_QUERIES))
        queries.press("Enter")
        settle(page)
        page.get_by_role("button", name="Run live").click()
        page.get_by_text("Ranking quality, live").wait_for()
        page.locator('[data-testid="stImage"] img').nth(1).wait_for()
        settle(page)
        saved.append(shoot(page, out, "evaluation-live"))
        browser.close()
    return saved


def main() -> None:
    """Parse arguments, start the app on the demo data, and take the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mlens-shots-") as tmp:
        data_dir = Path(tmp)
        load_demo(data_dir)
        with running_app(data_dir, free_port()) as base:
            take(base, out, args.chromium)


if __name__ == "__main__":
    main()
