"""A suite as one file a CI job carries without the warehouse: ``adat suite export`` / ``import``.

A bundle is the suite run's own Parquet parts, byte for byte, in the warehouse's layout
(``runs/<table>/run_id=<id>/part-….parquet``) plus ``suite.json`` (:class:`SuiteManifest`: the run id,
the suite's name, each part's table, rows and sha256). Written as a ``.zip`` (one file; Parquet is
compressed already, so the zip stores) or, for any other destination, as that directory. The
parts are exactly what the warehouse reads, so their schemas are the records' and an import needs
no conversion: it checks every digest, copies each part atomically into the data directory under
the same run id, reads the tests back through their record model, and blesses the suite there.

Bundled tables (:data:`BUNDLE_TABLES`): what ``run-suite`` executes (tests), what its
``--fail-on regression`` gate and ``adat diff`` compare with (the suite run's executions,
verdicts, run row), what the test identity matches on (statements), the audit, and the process
checks its tests' statements carry (process_assertions: ``run-suite`` judges with them).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import adat
from adat.errors import UserError
from adat.records import TABLES, Record
from adat.suites.suite_blessings import bless, suite_tests
from adat.warehouse.layout import RUNS_DIR, live_parts, partition_path

FORMAT = "adat-suite/1"
MANIFEST = "suite.json"
BUNDLE_TABLES = ("runs", "tests", "statements", "ranked_statements", "instructions", "executions", "verdicts",
                 "audit_labels", "execution_labels", "process_assertions")


class BundledPart(Record):
    """One Parquet part in a bundle."""

    table: str
    file: str
    bytes: int
    sha256: str


class SuiteManifest(Record):
    """``suite.json``: what a bundle holds."""

    format: str = FORMAT
    run_id: str
    name: str
    tests: int
    adat_version: str
    exported_at: datetime
    parts: list[BundledPart]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _member(run_id: str, part: BundledPart) -> str:
    return f"{RUNS_DIR}/{part.table}/run_id={run_id}/{part.file}"


def export_suite(root: Path, run_id: str, name: str, dest: Path) -> SuiteManifest:
    """Write suite run ``run_id`` (named ``name``) as a bundle at ``dest`` (``.zip``: one file)."""
    tests = suite_tests(root, run_id)
    if not tests:
        raise UserError(f"run {run_id!r} has no tests in {root}", field="RUN|NAME",
                        fix="export a run that built a suite, or a name from `adat suite list`")
    files = [(table, path) for table in BUNDLE_TABLES
             for path in live_parts(partition_path(root, table, run_id))]
    manifest = SuiteManifest(run_id=run_id, name=name, tests=len(tests), adat_version=adat.__version__,
                             exported_at=datetime.now(UTC),
                             parts=[BundledPart(table=t, file=p.name, bytes=p.stat().st_size, sha256=_sha256(p))
                                    for t, p in files])
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    text = manifest.model_dump_json(indent=2)
    if dest.suffix == ".zip":
        tmp = dest.with_name(f".{dest.name}.tmp")
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(MANIFEST, text)
            for (_, path), part in zip(files, manifest.parts, strict=True):
                z.write(path, _member(run_id, part))
        os.replace(tmp, dest)
    else:
        if dest.exists() and any(dest.iterdir()):
            raise UserError(f"{dest} exists and is not empty", field="FILE",
                            fix="pass a new directory, or a file name ending in .zip")
        for (_, path), part in zip(files, manifest.parts, strict=True):
            target = dest / _member(run_id, part)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (dest / MANIFEST).write_text(text, encoding="utf-8")
    return manifest


def _unpacked(src: Path, into: Path) -> Path:
    """The bundle's directory: ``src`` itself, or a zip bundle extracted under ``into``."""
    if src.is_dir():
        return src
    try:
        with zipfile.ZipFile(src) as z:
            z.extractall(into)  # member names are checked against the manifest below
    except (zipfile.BadZipFile, OSError) as exc:
        raise UserError(f"cannot read suite bundle {src}: {exc}", field="FILE",
                        fix="pass a file written by `adat suite export` (a .zip or a directory)") from None
    return into


def read_manifest(directory: Path, src: Path) -> SuiteManifest:
    """The bundle's manifest; one-line UserError when missing, malformed or of another format."""
    try:
        manifest = SuiteManifest.model_validate(json.loads((directory / MANIFEST).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise UserError(f"{src} has no valid {MANIFEST} ({type(exc).__name__})", field="FILE",
                        fix="pass a file written by `adat suite export`") from None
    if manifest.format != FORMAT:
        raise UserError(f"{src} is a {manifest.format!r} bundle; this adat reads {FORMAT!r}", field="FILE",
                        fix="export the suite again with this adat version")
    return manifest


def import_suite(src: Path, root: Path) -> SuiteManifest:
    """Copy the bundle at ``src`` into the warehouse at ``root`` (same run id) and bless it there
    under its name. Importing the same bundle again changes nothing; a different run with the same
    id in ``root`` is refused (never merged)."""
    src = Path(src)
    if not src.exists():
        raise UserError(f"no suite bundle at {src}", field="FILE", fix="pass the file `adat suite export` wrote")
    with tempfile.TemporaryDirectory(prefix="adat-suite-") as tmp:
        directory = _unpacked(src, Path(tmp))
        manifest = read_manifest(directory, src)
        for part in manifest.parts:
            path = directory / _member(manifest.run_id, part)
            if part.table not in TABLES or "/" in part.file or not path.is_file() or _sha256(path) != part.sha256:
                raise UserError(f"{src}: part {part.table}/{part.file} is missing or damaged", field="FILE",
                                fix="export the suite again")
        _check_free(root, manifest)
        for part in manifest.parts:
            target = partition_path(root, part.table, manifest.run_id) / part.file
            if target.is_file():
                continue  # imported before: the same bytes (the digest names them)
            target.parent.mkdir(parents=True, exist_ok=True)
            temp = target.with_name(f".{target.name}.tmp")
            shutil.copyfile(directory / _member(manifest.run_id, part), temp)
            os.replace(temp, target)
    if len(suite_tests(root, manifest.run_id)) != manifest.tests:  # read back through the record model
        raise UserError(f"{src}: {manifest.tests} tests announced, a different number imported", field="FILE",
                        fix="export the suite again")
    bless(root, manifest.run_id, manifest.name, source=f"import:{src.name}")
    return manifest


def _check_free(root: Path, manifest: SuiteManifest) -> None:
    """Refuse an import whose run id already holds other tests in ``root``."""
    existing = {p.name for p in live_parts(partition_path(root, "tests", manifest.run_id))}
    bundled = {p.file for p in manifest.parts if p.table == "tests"}
    if existing and existing != bundled:
        raise UserError(f"run {manifest.run_id!r} already exists in {root} with other tests", field="--data-dir",
                        fix="import into another data directory, or delete that run's partitions first")
