"""Why LanceDB failed, in a line a person can act on: its errors from object storage are Rust
debug dumps of several hundred characters."""

from __future__ import annotations

import random
import re

_ADDRESS = re.compile(r"uri: Some\((https?://[^/\s)]+)")
_CAUSES = (
    (("tcp connect error", "connection refused", "dns error", "failed to lookup"),
     "cannot connect to {address}"),
    (("nosuchbucket", "bucket does not exist"), "the bucket does not exist"),
    (("invalidaccesskeyid", "signaturedoesnotmatch", "accessdenied", "status: 403",
      "forbidden"), "access denied by {address}: check the credentials"),
    (("timed out", "timeout"), "{address} did not answer in time"),
)  # fmt: skip


def is_conflict(error: BaseException) -> bool:
    """Another writer committed first (Lance: "Commit conflict", "Retryable commit conflict")."""
    return "conflict" in str(error).lower()


def commit_pause(attempt: int) -> float:
    """Seconds to wait before retrying a commit that lost a race: doubling, jittered."""
    return min(2.0, 0.05 * 2**attempt) * (0.5 + random.random())


def reason(error: BaseException, limit: int = 300) -> str:
    """The cause of a storage error in one short line; the error itself, shortened, else."""
    text = " ".join(str(error).split())
    lowered = text.lower()
    found = _ADDRESS.search(text)
    address = found.group(1) if found else "the object store"
    for needles, template in _CAUSES:
        if any(needle in lowered for needle in needles):
            return template.format(address=address)
    return f"{type(error).__name__}: {text[:limit]}"
