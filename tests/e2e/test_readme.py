"""The README's Python example runs exactly as written."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ..conftest import REPO

pytestmark = pytest.mark.slow


def test_readme_python_example_runs(tmp_path: object) -> None:
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "README has no python example"
    home = REPO / ".polyrag" / "readme-example"
    subprocess.run(["rm", "-rf", str(home)], check=True)
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    assert "220" in done.stdout and "travel-policy.md" in done.stdout
