"""Known vulnerabilities in the installed dependencies, from the package registry's own data.

`make test` runs this before the offline tests, with the Python of the environment it audits:

    .venv/bin/python .ci/audit.py [--requirements FILE] [--index-url URL]

Every installed distribution (or every `name==version` line of FILE) is looked up in the
registry's JSON API, which lists the advisories (OSV, GitHub, PYSEC) that affect a release — the
data `pip-audit` reads from PyPI. The release's own page (`/pypi/NAME/VERSION/json`) is asked
first; a registry that serves only the project's page (`/pypi/NAME/json`, whose advisories are
those of its latest release) is used when that page is missing, and a package installed older
than that latest release is then named as checked against the latest release only.

An advisory that cannot be fixed by upgrading and does not reach polyrag is accepted in
`.ci/audit-ignore.toml` with the reason; an accepted advisory that no longer applies is reported
so the entry can go. Exit status: 0 clean, 1 vulnerable (each advisory on one line), 2 the
registry could not be read (one line saying why).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

DEFAULT_INDEX = "https://pypi.org/pypi"
IGNORE_FILE = Path(__file__).with_name("audit-ignore.toml")
SELF = "polyrag"  # the project under test, installed editable: not a dependency


class RegistryError(Exception):
    """The registry could not be read (network, server or format)."""


@dataclass(frozen=True)
class Advisory:
    id: str
    aliases: tuple[str, ...]
    fixed_in: tuple[str, ...]
    details: str


@dataclass
class Finding:
    name: str
    version: str
    advisories: list[Advisory] = field(default_factory=list)
    latest_only: str | None = None  # the latest release, when only its advisories were readable


def normalize(name: str) -> str:
    """A distribution's name as the registry keys it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> list[tuple[str, str]]:
    """(name, version) of every distribution of this interpreter's environment."""
    seen: dict[str, tuple[str, str]] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and normalize(name) != SELF:
            seen.setdefault(normalize(name), (name, dist.version))
    return sorted(seen.values(), key=lambda pair: normalize(pair[0]))


def from_requirements(path: Path) -> list[tuple[str, str]]:
    """(name, version) of each `name==version` line; comments and other lines are skipped."""
    pinned = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#]+)", line)
        if match and normalize(match.group(1)) != SELF:
            pinned.append((match.group(1), match.group(2)))
    return pinned


def _get(url: str, timeout: float, tries: int = 3) -> dict[str, object] | None:
    """The JSON at `url`, or None when the registry has no such page (404). A failed
    connection, a server error or a "too many requests" is tried again (after 1 s, then 2 s)
    before it counts."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    for attempt in range(tries):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                data = json.load(response)
            break
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            failure = f"HTTP {error.code}"
            if error.code < 500 and error.code != 429:  # too many requests: wait and retry
                raise RegistryError(f"{url}: {failure}") from error
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            failure = str(getattr(error, "reason", error))
        except ValueError as error:
            raise RegistryError(f"{url}: not JSON ({error})") from error
        if attempt == tries - 1:
            raise RegistryError(f"{url}: {failure}")
        time.sleep(2**attempt)
    if not isinstance(data, dict):
        raise RegistryError(f"{url}: not a JSON object")
    return data


def _advisories(page: dict[str, object]) -> list[Advisory]:
    found = []
    listed = page.get("vulnerabilities")
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict) or item.get("withdrawn"):
            continue
        found.append(
            Advisory(
                id=str(item.get("id")),
                aliases=tuple(str(a) for a in item.get("aliases") or ()),
                fixed_in=tuple(str(v) for v in item.get("fixed_in") or ()),
                details=" ".join(str(item.get("details") or item.get("summary") or "").split()),
            )
        )
    return found


def check(name: str, version: str, index: str, timeout: float, tries: int) -> Finding | None:
    """The advisories of one release; None when the registry does not know the project."""
    key = normalize(name)
    page = _get(f"{index}/{key}/{version}/json", timeout, tries)
    if page is not None:
        return Finding(name, version, _advisories(page))
    project = _get(f"{index}/{key}/json", timeout, tries)
    if project is None:
        return None
    info = project.get("info")
    latest = str(info.get("version")) if isinstance(info, dict) else ""
    finding = Finding(name, version, _advisories(project))
    if latest != version:
        finding.latest_only = latest
    return finding


def load_accepted(path: Path) -> dict[str, str]:
    """Accepted advisory id → the reason it does not reach polyrag."""
    if not path.is_file():
        return {}
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    accepted = {}
    for entry in table.get("accepted", []):
        if not entry.get("id") or not entry.get("reason"):
            raise SystemExit(f"{path}: every [[accepted]] entry needs an id and a reason")
        accepted[str(entry["id"])] = str(entry["reason"])
    return accepted


def audit(
    packages: Iterable[tuple[str, str]],
    index: str,
    accepted: dict[str, str],
    timeout: float,
    tries: int = 3,
) -> tuple[int, list[str]]:
    """The exit status and the lines to print."""
    packages = list(packages)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda p: check(p[0], p[1], index, timeout, tries), packages))
    lines: list[str] = []
    vulnerable = 0
    used: set[str] = set()
    unknown = [p[0] for p, r in zip(packages, results, strict=True) if r is None]
    findings = [r for r in results if r is not None]
    for finding in findings:
        told: set[str] = set()  # one advisory is often listed under each of its ids
        for advisory in finding.advisories:
            ids = {advisory.id, *advisory.aliases}
            if ids & told:
                continue
            told |= ids
            hit = sorted(ids & accepted.keys())
            fix = f"fixed in {', '.join(advisory.fixed_in)}" if advisory.fixed_in else "no fix"
            where = f"{finding.name} {finding.version}: {advisory.id} ({fix})"
            if hit:
                used.update(hit)
                lines.append(f"accepted   {where} — {accepted[hit[0]]}")
            else:
                vulnerable += 1
                lines.append(f"VULNERABLE {where} — {advisory.details[:160]}")
    stale = sorted(accepted.keys() - used)
    for advisory_id in stale:
        lines.append(f"stale      {advisory_id} is accepted but no longer found: remove it")
    partial = [f"{f.name} {f.version} (latest {f.latest_only})" for f in findings if f.latest_only]
    if partial:
        lines.append(
            "checked against their latest release only (the registry has no page for the "
            f"installed one): {'; '.join(partial)}"
        )
    if unknown:
        lines.append(f"not on the registry, not audited: {', '.join(unknown)}")
    lines.append(
        f"audited {len(findings)} of {len(packages)} packages at {index}: "
        f"{vulnerable} known vulnerabilit{'y' if vulnerable == 1 else 'ies'}"
        + (f", {len(used)} accepted" if used else "")
    )
    return (1 if vulnerable else 0), lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requirements", type=Path, help="audit name==version lines of FILE")
    parser.add_argument("--index-url", default=DEFAULT_INDEX, help="the registry's JSON API")
    parser.add_argument("--ignore-file", type=Path, default=IGNORE_FILE)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--tries", type=int, default=3, help="per page, for network failures")
    args = parser.parse_args(argv)
    packages = from_requirements(args.requirements) if args.requirements else installed()
    try:
        status, lines = audit(
            packages,
            args.index_url.rstrip("/"),
            load_accepted(args.ignore_file),
            args.timeout,
            args.tries,
        )
    except RegistryError as error:
        print(f"audit: cannot read the package registry: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
