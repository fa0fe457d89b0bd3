"""Every bad input a user can give is one line on stderr, exit 2, before any flow or write (issue 30).

Each case runs the real ``adat`` command in a subprocess, in a fresh directory, and checks: exit
code 2, exactly one line on stderr and no traceback, under 1 kB of output in all, and no file
created, changed or removed anywhere under that directory (the default data dir ``data`` is in
it, and so is every ``--data-dir`` / ``--out`` a case names). A case may also name a text the
line must hold (the field or the refused thing), so that a different, earlier refusal does not
pass for the one under test.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.support.tdad_spec import library_spec

ADAT = [sys.executable, "-c", "from adat.cli.main import app; app()"]
REPO = Path(__file__).resolve().parents[2]
NOT_UTF8 = b"seed: 1\nrun_id: caf\xe9-\xff\xfe\n"

#: a config that passes every check of `adat run` except the one a case breaks
OK = "run_id: bad-input\n"
#: 9 levels of 9 aliases: 387 bytes of YAML that expand to 9**9 (387 million) strings
ALIAS_BOMB = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


@dataclass
class Case:
    id: str
    args: list[str]
    files: dict[str, bytes | str] = field(default_factory=dict)
    #: text the error line must contain (case-insensitive)
    expect: str = ""
    setup: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)


def _cfg(text: str) -> dict[str, bytes | str]:
    return {"c.yaml": text}


#: a directory the command may not write in: a read-only one, or /proc for root (whom no mode stops)
RO = "/proc/adat-bad-input" if os.geteuid() == 0 else "ro"


def _readonly_dir(name: str) -> Callable[[Path], None]:
    def make(tmp: Path) -> None:
        if RO != "ro":
            return
        (tmp / name).mkdir()
        (tmp / name).chmod(stat.S_IRUSR | stat.S_IXUSR)
    return make


def _mkdirs(*names: str) -> Callable[[Path], None]:
    def make(tmp: Path) -> None:
        for name in names:
            (tmp / name).mkdir(parents=True, exist_ok=True)
    return make


def _home_with_bad_catalog(tmp: Path) -> None:
    """A copy of ADAT_HOME (symlinks) whose instruction catalog is not UTF-8."""
    home = tmp / "home"
    (home / "catalogs" / "instructions").mkdir(parents=True)
    for top in ("sql", "data"):
        (home / top).symlink_to(REPO / top)
    for sub in ("prompts", "faults"):
        (home / "catalogs" / sub).symlink_to(REPO / "catalogs" / sub)
    (home / "catalogs" / "instructions" / "instructions.yaml").write_bytes(b"instructions:\n- id: caf\xe9\n")


A_SPEC = "spec.yaml"
SPEC_FILE = {A_SPEC: yaml.safe_dump(library_spec(), sort_keys=False)}

CASES = [
    # --- files that are not UTF-8 ---
    Case("config-not-utf8-check", ["config", "check", "c.yaml"], {"c.yaml": NOT_UTF8}, "utf-8"),
    Case("config-not-utf8-run", ["run", "-c", "c.yaml"], {"c.yaml": NOT_UTF8}, "utf-8"),
    Case("spec-not-utf8-lint", ["spec", "lint", "s.yaml"], {"s.yaml": NOT_UTF8}, "utf-8"),
    Case("spec-not-utf8-tests", ["spec", "tests", "s.yaml"], {"s.yaml": NOT_UTF8}, "utf-8"),
    Case("instruction-catalog-not-utf8", ["run", "-c", "c.yaml"], _cfg(OK), "utf-8",
         setup=_home_with_bad_catalog, env={"ADAT_HOME": "home"}),
    Case("sql-file-not-utf8", ["sql", "q.sql", "--data-dir", "data"], {"q.sql": b"select '\xff\xfe'"}, "utf-8",
         setup=_mkdirs("data")),
    Case("dotenv-not-utf8", ["run", "-c", "c.yaml"],
         {"c.yaml": OK + "models: {judge: openai/gpt-4o}\n", ".env": b"OPENAI_API_KEY=caf\xe9\xff\n"}, ".env"),
    Case("dotenv-not-utf8-header", ["config", "check", "c.yaml"],
         {"c.yaml": "target: {type: http, base_url: 'http://127.0.0.1:9', headers: {X: '${K}'}}\n",
          ".env": b"K=\xff\xfe\n"}, ".env"),
    Case("policy-not-utf8", ["config", "check", "c.yaml"],
         {"c.yaml": "target: {type: llm-agent, model: openai/m, policy: p.md}\n", "p.md": b"# Policy\n\xff\n"}, "utf-8"),
    # --- a data dir that is a file ---
    Case("data-dir-field-file-check", ["config", "check", "c.yaml"], {"c.yaml": "data_dir: f\n", "f": "x"}, "data_dir"),
    Case("data-dir-field-file-run", ["run", "-c", "c.yaml"], {"c.yaml": OK + "data_dir: f\n", "f": "x"}, "data_dir"),
    Case("data-dir-option-file-run", ["run", "-c", "c.yaml", "--data-dir", "f"], {"c.yaml": OK, "f": "x"},
         "--data-dir"),
    Case("data-dir-option-file-sql", ["sql", "stg_runs", "--data-dir", "f"], {"f": "x"}, "--data-dir"),
    Case("data-dir-option-file-demo", ["demo", "--data-dir", "f"], {"f": "x"}, "--data-dir"),
    # --- output paths checked before work starts ---
    Case("sql-out-missing-dir", ["sql", "stg_runs", "--format", "csv", "--out", "nodir/x.csv", "--data-dir", "data"],
         expect="--out", setup=_mkdirs("data/runs")),
    Case("sql-out-is-dir", ["sql", "stg_runs", "--format", "csv", "--out", "odir", "--data-dir", "data"],
         expect="--out", setup=_mkdirs("data/runs", "odir")),
    Case("report-out-readonly", ["report", "r1", "--out", f"{RO}/r.html", "--data-dir", "data"], expect="--out",
         setup=lambda t: (_mkdirs("data/runs")(t), _readonly_dir("ro")(t))),
    Case("report-out-is-dir", ["report", "r1", "--out", "odir", "--data-dir", "data"], expect="--out",
         setup=_mkdirs("data/runs", "odir")),
    Case("junit-out-is-dir", ["export", "junit", "r1", "--out", "odir", "--data-dir", "data"], expect="--out",
         setup=_mkdirs("data/runs", "odir")),
    Case("spec-tests-out-readonly", ["spec", "tests", A_SPEC, "--out", f"{RO}/t.yaml"], SPEC_FILE, expect="--out",
         setup=_readonly_dir("ro")),
    Case("spec-tests-out-is-dir", ["spec", "tests", A_SPEC, "--out", "odir"], SPEC_FILE, expect="--out", setup=_mkdirs("odir")),
    # --- sizes and YAML that must be refused fast ---
    Case("config-over-512kb-check", ["config", "check", "c.yaml"],
         _cfg("tester_facts:\n" + "".join(f"- fact number {i} of a long list\n" for i in range(20_000))), "kb"),
    Case("config-over-512kb-run", ["run", "-c", "c.yaml"],
         _cfg("tester_facts: ['" + "x" * 600_000 + "']\n"), "kb"),
    Case("alias-bomb-check", ["config", "check", "c.yaml"], _cfg(ALIAS_BOMB), "alias"),
    Case("alias-bomb-spec", ["spec", "lint", "s.yaml"], {"s.yaml": ALIAS_BOMB}, "alias"),
    # --- refused before a flow starts or a run row is written ---
    Case("spec-compile-from-run-path", ["spec", "compile", A_SPEC, "--from-run", "../x", "--data-dir", "data"],
         SPEC_FILE, expect="--from-run", setup=_mkdirs("data/runs")),
    Case("spec-compile-from-run-unknown", ["spec", "compile", A_SPEC, "--from-run", "nope", "--data-dir", "data"],
         SPEC_FILE, expect="--from-run", setup=_mkdirs("data/runs")),
    Case("baselines-from-unknown", ["baselines", "-c", "c.yaml", "--from", "nope"], _cfg(OK), "--from",
         setup=_mkdirs("data/runs")),
    Case("ablation-from-unknown", ["ablation", "-c", "c.yaml", "--from", "nope", "--selectors", "uniform"], _cfg(OK),
         "--from", setup=_mkdirs("data/runs")),
    # --- accepted silently before ---
    Case("config-empty-check", ["config", "check", "c.yaml"], _cfg(""), "empty"),
    Case("config-empty-run", ["run", "-c", "c.yaml"], _cfg("# nothing\n"), "empty"),
    Case("config-duplicate-key", ["config", "check", "c.yaml"], _cfg("seed: 1\nseed: 2\n"), "seed"),
    Case("config-duplicate-nested-key", ["run", "-c", "c.yaml"], _cfg("discovery:\n  sessions: 2\n  sessions: 3\n"),
         "sessions"),
    Case("sessions-1e12", ["config", "check", "c.yaml"], _cfg("discovery: {sessions: 1e12}\n"), "discovery.sessions"),
    Case("sessions-float-1e12", ["run", "-c", "c.yaml"], _cfg(OK + "discovery: {sessions: 1.0e+12}\n"),
         "discovery.sessions"),
    Case("sessions-huge-int", ["run", "-c", "c.yaml"], _cfg(OK + "discovery: {sessions: 1000000000000}\n"),
         "discovery.sessions"),
    Case("turn-limit-huge", ["config", "check", "c.yaml"], _cfg("discovery: {turn_limit: 100000}\n"), "turn_limit"),
    Case("generation-n-huge", ["config", "check", "c.yaml"], _cfg("generation: {n: 10000000}\n"), "generation.n"),
    Case("workers-huge", ["config", "check", "c.yaml"], _cfg("execution: {workers: 100000}\n"), "execution.workers"),
    Case("repeat-huge", ["config", "check", "c.yaml"], _cfg("execution: {repeat: 1000000}\n"), "execution.repeat"),
    Case("repeat-option-huge", ["run-suite", "-c", "c.yaml", "--suite", "s1", "--repeat", "1000000"], _cfg(OK),
         "repeat"),
    Case("llm-timeout-negative", ["config", "check", "c.yaml"], _cfg("llm: {timeout_s: -5}\n"), "llm.timeout_s"),
    Case("llm-retries-negative", ["config", "check", "c.yaml"], _cfg("llm: {max_retries: -1}\n"), "llm.max_retries"),
    Case("llm-concurrency-huge", ["config", "check", "c.yaml"], _cfg("llm: {concurrency: 1000000}\n"),
         "llm.concurrency"),
    Case("report-against-path", ["report", "r1", "--against", "../x", "--data-dir", "data"], expect="--against",
         setup=_mkdirs("data/runs")),
    Case("diff-run-path", ["diff", "r1", "../x", "--data-dir", "data"], expect="RUN_B", setup=_mkdirs("data/runs")),
    Case("report-run-path", ["report", "../x", "--data-dir", "data"], expect="run", setup=_mkdirs("data/runs")),
    # --- config check catches what run catches ---
    Case("check-unknown-provider", ["config", "check", "c.yaml"], _cfg("models: {judge: nosuch/model}\n"),
         "models.judge"),
    Case("check-model-without-provider", ["config", "check", "c.yaml"], _cfg("models: {judge: gpt-4o}\n"),
         "models.judge"),
    Case("check-unknown-fault", ["config", "check", "c.yaml"], _cfg("target: {type: reference, fault: no_such_fault}\n"),
         "target.fault"),
    Case("check-path-fault", ["config", "check", "c.yaml"], _cfg("target: {type: reference, fault: ../x}\n"), "target.fault"),
    Case("check-missing-database", ["config", "check", "c.yaml"], _cfg("target: {type: reference, database: missing.json}\n"),
         "target.database"),
    # --- the sql sandbox names what it refuses ---
    Case("sql-install", ["sql", "q.sql", "--data-dir", "data"], {"q.sql": "install httpfs"}, "install",
         setup=_mkdirs("data/runs")),
    Case("sql-attach", ["sql", "q.sql", "--data-dir", "data"], {"q.sql": "attach 'x.db'"}, "attach",
         setup=_mkdirs("data/runs")),
    # --- long values are echoed as a short excerpt only ---
    Case("long-unknown-field", ["config", "check", "c.yaml"], _cfg("x" * 1000 + ": 1\n"), "unknown field"),
    Case("long-bad-value", ["config", "check", "c.yaml"], _cfg("seed: '" + "y" * 5000 + "'\n"), "seed"),
    Case("long-fault", ["run", "-c", "c.yaml"], _cfg(OK + "target: {type: reference, fault: " + "z" * 5000 + "}\n"),
         "c.yaml: target.fault"),
    Case("long-run-id-option", ["run-suite", "-c", "c.yaml", "--suite", "../" + "q" * 5000], _cfg(OK), "--suite"),
    Case("long-sql-name", ["sql", "n" * 5000 + "/x", "--data-dir", "data"], expect="NAME", setup=_mkdirs("data/runs")),
    # --- a few more everyday ones ---
    Case("config-not-a-mapping", ["config", "check", "c.yaml"], _cfg("- a\n- b\n"), "mapping"),
    Case("config-syntax-error", ["config", "check", "c.yaml"], _cfg("a: [1, 2\n"), "yaml"),
    Case("config-missing", ["run", "-c", "nope.yaml"], expect="nope.yaml"),
    Case("refresh-unknown-stage", ["run", "-c", "c.yaml", "--refresh", "nosuch"], _cfg(OK), "--refresh"),
    Case("sql-bad-format", ["sql", "stg_runs", "--format", "xml", "--data-dir", "data"], expect="--format",
         setup=_mkdirs("data/runs")),
]


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its size and modification time (ns)."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(root))] = (st.st_size if not path.is_dir() else 0, st.st_mtime_ns)
    return out


def test_at_least_forty_cases() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    assert len(ALIAS_BOMB) < 450


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_exit_2_nothing_written(case: Case, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name, content in case.files.items():
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.write_bytes if isinstance(content, bytes) else target.write_text)(content)  # type: ignore[operator]
    if case.setup is not None:
        case.setup(work)
    before = _listing(work)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "K", "PREFECT_API_URL")}
    env.update(ADAT_HOME=str(REPO), XDG_CACHE_HOME=str(tmp_path / "cache"), PREFECT_HOME=str(tmp_path / "prefect"),
               PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")]))
    env.update({k: str(work / v) if k == "ADAT_HOME" else v for k, v in case.env.items()})
    started = time.monotonic()
    try:
        result = subprocess.run([*ADAT, *case.args], capture_output=True, cwd=work, env=env, timeout=120)
    finally:
        for path in work.rglob("*"):  # let pytest clean up the read-only directories
            if path.is_dir() and not path.is_symlink():
                path.chmod(stat.S_IRWXU)
    elapsed = time.monotonic() - started
    err = result.stderr.decode("utf-8", "replace")
    out = result.stdout.decode("utf-8", "replace")
    lines = err.strip().splitlines()
    assert result.returncode == 2, f"exit {result.returncode}: {err[-2000:]}{out[-500:]}"
    assert "Traceback" not in err + out, err[-2000:]
    assert len(lines) == 1, f"{len(lines)} lines on stderr: {err[:2000]}"
    assert len(result.stdout) + len(result.stderr) < 1024, f"{len(result.stdout) + len(result.stderr)} bytes: {err[:300]}"
    assert case.expect.lower() in lines[0].lower(), lines[0]
    assert not re.search(r"(.)\1{80}", lines[0]), f"a value echoed whole: {lines[0][:200]}"
    assert elapsed < 60, f"took {elapsed:.1f} s"
    assert _listing(work) == before, "files under the working directory changed"
