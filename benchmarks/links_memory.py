"""Server memory while a class opens many distinct links at the size limits.

Starts its own `streamlit run` on loopback (no other address), then, on one page:

1. opens ``--links`` distinct max-size links one after another (n = d_model = d_k = d_v = 512,
   a new seed each), closing each tab once its charts are drawn, and prints the server's
   resident memory (VmRSS) after each, and the growth per link over the second half (once the
   shared caches are full it should be near zero);
2. holds ``--held`` of them open at once, then prints the memory again.

Exits 1 when the memory passed ``--target-mb`` (700 MB: Community Cloud gives about 1 GB).
``--root PATH`` serves another checkout instead (to compare with an older tree). Bounded:
every loop has a fixed count, every wait a timeout. A benchmark, never a test.

    python benchmarks/links_memory.py [--page Step_by_step] [--links 60] [--held 20]
"""

import argparse
import statistics
import sys
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.browser import (  # noqa: E402
    launch_chromium,
    server_port,
    server_rss_mb,
    streamlit_server,
    wait_for_run,
)


def link(url, page, seed):
    query = {"n": 512, "d_model": 512, "d_k": 512, "d_v": 512, "seed": seed}
    return f"{url}/{page}?{urlencode(query)}"


def open_and_wait(context, address, timeout=240_000):
    tab = context.new_page()
    tab.goto(address)
    tab.wait_for_selector(".js-plotly-plot", timeout=timeout)  # the page has drawn
    wait_for_run(tab, timeout=timeout)
    return tab


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", default="Step_by_step")
    parser.add_argument("--links", type=int, default=60)
    parser.add_argument("--held", type=int, default=20)
    parser.add_argument("--target-mb", type=float, default=700)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()

    with streamlit_server(root=args.root) as url, sync_playwright() as p:
        port = server_port(url)
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        open_and_wait(context, f"{url}/").close()
        start = server_rss_mb(port)
        print(f"{args.root}: /{args.page}, server after the home page: {start:.0f} MB")
        rss = []
        for k in range(args.links):
            open_and_wait(context, link(url, args.page, 1000 + k)).close()
            rss.append(server_rss_mb(port))
            print(f"  link {k + 1:3d}: {rss[-1]:6.0f} MB", flush=True)
        half = rss[len(rss) // 2 :]
        growth = (half[-1] - half[0]) / max(1, len(half) - 1)
        print(
            f"after {args.links} links, one after another: {rss[-1]:.0f} MB "
            f"(max {max(rss):.0f}); growth per link over the last {len(half)}: {growth:+.1f} MB"
        )
        tabs = [open_and_wait(context, link(url, args.page, 5000 + k)) for k in range(args.held)]
        held = server_rss_mb(port)
        print(f"with {args.held} more held open at once: {held:.0f} MB")
        for tab in tabs:
            tab.close()
        browser.close()
    worst = max([*rss, held])
    print(
        f"largest: {worst:.0f} MB; target {args.target_mb:.0f} MB: "
        + ("met" if worst <= args.target_mb else "NOT met")
    )
    median = statistics.median(rss)
    print(f"median over the links: {median:.0f} MB")
    return 0 if worst <= args.target_mb else 1


if __name__ == "__main__":
    sys.exit(main())
