"""Mutation testing of the modules with the most rules: ``make mutate [MODULE=name]``.

Each module is mutated by mutmut (pinned in the Makefile) and checked against a fast,
targeted subset of the tests (:data:`MODULES`), never the whole suite; mutmut runs
only the tests that reach the mutated function, each mutant in a forked worker with
a wall-clock and a CPU limit. The run happens in ``.mutate/<name>/`` (a scratch
folder of symlinks to the tree plus mutmut's ``mutants/`` copy, rebuilt each run),
niced, with one worker unless ``MUTATE_JOBS`` says otherwise. The kill rate per
source file and the surviving mutants are written to the module's section of
``benchmarks/MUTATION.md``; the other sections and the hand-written text around
them are kept.

``python -m benchmarks.mutation money gate`` runs two modules; ``all`` runs every
one (hours on 2 shared cores: run them one at a time).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import inspect
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from filelock import FileLock

ROOT = Path(__file__).resolve().parent.parent
REPORT = Path(__file__).with_name("MUTATION.md")
SCRATCH = ROOT / ".mutate"


@dataclass(frozen=True)
class Module:
    """What one ``make mutate MODULE=name`` mutates, and the tests that judge it."""

    sources: tuple[str, ...]  # only_mutate globs, relative to the root
    tests: tuple[str, ...]  # test files; tests/test_mutation_<name>*.py are added
    # lines (regular expressions) whose statements are not mutated, each with the reason
    # no test could ever kill a mutant there; the report lists them
    skip: tuple[tuple[str, str], ...] = ()
    # tests (pytest node ids) left out of the run, each with the reason it cannot pass
    # under mutmut at all (not on a mutant: on the unmutated code); the report lists them
    deselect: tuple[tuple[str, str], ...] = ()


# mutmut calls each function through a trampoline in its own package: a test that
# checks a warning names the user's line (errors.warn walks the stack to the first frame
# outside icoframes) sees the trampoline's frame instead
_WARNING_LINE = "a warning's line is the trampoline's under mutmut (errors.warn names the " \
                "first frame outside icoframes)"

# 2 cores shared by 8 engineers: a test that loads from the sandbox or plots takes 5 to
# 15 s, run again for each of the hundreds of mutants of the function it reaches
_SLOW = ("a sandbox load or plot of 5 to 15 s, run for every mutant it reaches: too slow for "
         "2 shared cores (the fast tests of the same file reach the same functions)")

# the store's tests of other processes on one cache dir (crawlers, SIGKILL, SIGSTOP)
_PROCESSES = ("other processes on the cache dir (crawlers, SIGKILL or SIGSTOP) for 3 to 13 s, "
              "run for every mutant it reaches: "
              "too slow for 2 shared cores; its children import the unmutated package, and "
              "tests/test_mutation_store_*.py reach the same functions in-process")
_SLOW_STORE = ("sandbox loads of 5 to 12 s (3 services; a read-only bind mount; a refresh of "
               "200 ICOs) or retries against a closed port, run for every mutant of the "
               "ledger, the cache or the database: too slow for 2 shared cores "
               "(tests/test_mutation_store_*.py reach the same functions directly)")

# the store's tests, and the cache dir's (housekeeping and legacy, built on the store)
_STORE_TESTS = ("tests/test_store.py", "tests/test_housekeeping.py", "tests/test_durability.py",
                "tests/test_migration.py", "tests/test_derived.py")
_STORE_DESELECT = (
    *((test, _PROCESSES) for test in (
        "tests/test_durability.py::test_sigkill_rounds_refetch_at_most_the_requests_in_flight",
        "tests/test_durability.py::test_three_processes_on_one_cache_dir_fetch_each_profile_once",
        "tests/test_store.py::test_three_processes_sharing_a_cache_dir_record_each_profile_once",
        "tests/test_store.py::test_claims_are_disjoint_and_a_killed_claimer_loses_them_at_once",
        "tests/test_store.py::test_a_stopped_claimers_leases_lapse_and_a_renewing_one_keeps_them",
        "tests/test_store.py::test_the_tables_follow_a_live_process",
        "tests/test_store.py::test_a_recorded_profile_survives_a_sigkill_at_once",
        "tests/test_derived.py::test_an_update_killed_between_two_files_is_completed_by_the_next_"
        "read")),
    *((test, _SLOW_STORE) for test in (
        "tests/test_housekeeping.py::test_clear_cache_all_reaches_every_service_folder_and_keeps_"
        "ledgers",
        "tests/test_housekeeping.py::test_a_service_that_was_never_reached_gets_no_folder",
        "tests/test_housekeeping.py::test_a_read_only_cache_dir_serves_warm_and_offline_loads",
        "tests/test_derived.py::test_a_refresh_of_a_tenth_tidies_a_tenth")))

# hypothesis tests of parse over hundreds of generated profiles: half the time of a
# surviving parse mutant (every test that reaches it runs)
_PROPERTY = ("a property test over 40 to 300 generated profiles (7 to 25 s), run in full for "
             "every parse mutant that survives: too slow for 2 shared cores; the parser's rule "
             "tests and tests/test_mutation_parse.py reach the same functions value by value")

MODULES: dict[str, Module] = {
    # the parser's own rule tests (numbers, prices, dates, vocabulary), then its tables
    "parse": Module(("icoframes/parse/*",),
                    ("tests/test_numbers.py", "tests/test_prices.py",
                     "tests/test_dates_and_labels.py", "tests/test_vocabulary.py",
                     "tests/test_units.py", "tests/test_units_own_ticker.py",
                     "tests/test_parse_defects.py", "tests/test_parse_v19.py",
                     "tests/test_parse_v20.py", "tests/test_parse_v21.py",
                     "tests/test_parse_v23.py", "tests/test_parse_v23_dates.py",
                     "tests/test_parse_v24.py", "tests/test_parse_v25.py",
                     "tests/test_parse_v26.py", "tests/test_parse_v26_units.py",
                     "tests/test_parse_v26_one_rule.py", "tests/test_parse_v27.py",
                     "tests/test_problems.py", "tests/test_lists.py",
                     "tests/test_tidy.py", "tests/test_tables.py"), deselect=tuple(
                        (test, _PROPERTY) for test in (
                            "tests/test_lists.py::test_tidy_and_list_frame_agree_on_which_ids_"
                            "are_readable",
                            "tests/test_tidy.py::test_any_shape_gives_well_typed_related_tables",
                            "tests/test_tidy.py::test_tidy_is_deterministic"))),
    "gate": Module(("icoframes/api/gate.py",), ("tests/test_gate.py",)),
    "store": Module(("icoframes/store/*",), _STORE_TESTS, deselect=_STORE_DESELECT),
    # housekeeping and legacy moved out of store/ (issue 18) and keep the store's tests
    "cachedir": Module(("icoframes/cachedir/*",), _STORE_TESTS, deselect=_STORE_DESELECT),
    # test_freshness.py (sandbox loads over days of simulated time) takes minutes per
    # surviving mutant on 2 shared cores: policy is judged by its direct tests alone
    "policy": Module(("icoframes/fetch/policy.py", "icoframes/fetch/loadages.py"), ()),
    "money": Module(("icoframes/money/*",), ("tests/test_money.py",), deselect=(
        ("tests/test_money.py::test_the_old_name_max_age_works_for_one_version_with_a_future"
         "_warning", _WARNING_LINE),
        *((f"tests/test_money.py::{test}", _SLOW) for test in (
            "test_dates_of_year_1_2263_and_9999_survive_every_function_downstream",
            "test_loaded_icos_convert_past_prices_at_their_fetch_and_ongoing_at_the_sale",
            "test_sandbox_amounts_in_eth_btc_eur_convert_to_realistic_usd",
            "test_sandbox_wide_rates_give_the_long_forms_dollars")))),
    "params": Module(("icoframes/api/params.py",), ("tests/test_params.py",)),
    # the client's tests reach retry.py through sandbox loads and retries of seconds each:
    # it is judged by its direct tests (tests/test_mutation_retry.py) alone
    "retry": Module(("icoframes/api/retry.py",), ()),
    # the client's tests reach auth.py through sandbox loads: judged by its direct tests
    "auth": Module(("icoframes/api/auth.py",), ()),
    "text": Module(("icoframes/api/text.py",), ()),
    # every parse test reaches fold(): the module's own functions are judged by direct tests
    "vocabulary": Module(("icoframes/vocabulary.py",), (), skip=(
        (r"^    out = \{fold\(spelling\): name|^    if len\(out\) != sum\(map\(len, "
         r"table\.values\(\)\)\)|^        raise ImportError\(\"a spelling names two things\"\)$",
         "_inverse builds _FAMILY and _NETWORK once, when vocabulary.py is imported: mutmut "
         "switches a mutant on only for calls made while a test runs"),)),
    # the loads' tests reach stops.py through sandbox loads: judged by its direct tests
    "stops": Module(("icoframes/fetch/stops.py", "icoframes/fetch/quotaday.py"), ()),
    "control": Module(("icoframes/api/control.py", "icoframes/api/asked.py",
                       "icoframes/api/switch.py"), ()),
    # the client's tests reach attempts.py through hostile servers and loads (retries of
    # seconds, a load per breaker test): judged by its direct tests (test_mutation_attempts)
    "attempts": Module(("icoframes/api/attempts.py",), ()),
    "secret": Module(("icoframes/secret.py",), ("tests/test_secret.py",), deselect=(
        ("tests/test_secret.py::test_a_password_in_base_url_is_hidden_in_the_breaker_error",
         "a load against a closed port that retries until the breaker opens (30 s), run for "
         "every mutant it reaches: too slow for 2 shared cores (redact_url and RedactedURL, "
         "what it reaches, are checked value by value in tests/test_mutation_secret.py)"),)),
    "features": Module(("icoframes/features.py",), ("tests/test_features.py",), skip=(
        (r"^def _f\(|^    return Feature\(name, dtype, definition, needs_rates\)$",
         "_f builds FEATURES once, when features.py is imported: mutmut switches "
                       "a mutant on only for calls made while a test runs"),)),
}

# Reads mutmut's results inside the scratch folder (mutmut's own modules, version
# pinned): every mutant's status, and the diff of each survivor.
_COLLECT = """
import json, sys
from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code
from mutmut.utils.file_utils import walk_mutatable_files
rows = []
for path in walk_mutatable_files():
    data = SourceFileMutationData(path=path)
    data.load()
    for name, code in sorted(data.exit_code_by_key.items()):
        status = status_by_exit_code[code]
        quiet = status in ("killed", "timeout", "not checked")
        diff = "" if quiet else get_diff_for_mutant(name, path=path)
        rows.append({"path": str(path), "name": name, "status": status, "diff": diff})
json.dump(rows, sys.stdout)
"""


def log(message: str) -> None:
    print(f"[mutate {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


_ALSO = ("docs", "README.md", "CHANGELOG.md")  # copied beside the mutated package


def module_of(name: str) -> Module:
    """``parse`` or one file of it, ``parse:units`` (same tests, one file mutated), or a
    few, ``parse:rules+dates`` (one run: the tests' timing is measured once)."""
    module, _, part = name.partition(":")
    whole = MODULES[module]
    if not part:
        return whole
    folder = whole.sources[0].removesuffix("/*")
    return Module(tuple(f"{folder}/{file}.py" for file in part.split("+")), whole.tests,
                  whole.skip, whole.deselect)


def tree_state() -> str:
    """The commit checked out, and whether icoframes/ or tests/ differ from it."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout.strip() or "?"
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "icoframes", "tests"], cwd=ROOT,
                           capture_output=True, text=True, check=False).stdout.strip()
    return commit + (" (+ uncommitted changes)" if dirty else "")


# mutmut leaves a decorated function unmutated (a decorator runs at the definition, and the
# trampoline would sit under it), so the whole body of to_usd and compute_features went
# unchecked once they gained @checked_keywords. A decorator that only checks the call's
# keywords and calls through is applied after the module's code instead, in the scratch
# copy of the sources only: the function's body is mutated like any other.
UNDECORATE: Final = ("checked_keywords",)
_DECORATED: Final = re.compile(rf"^@({'|'.join(UNDECORATE)})\n(def (\w+)\()", re.MULTILINE)
# A cache (read_label's lru_cache) is dropped in the scratch copy instead: it only changes
# speed, and mutmut forks each mutant's tests from a process that ran the unmutated code,
# whose cached answers would hide the mutant.
UNCACHE: Final = ("lru_cache", "functools.lru_cache", "cache", "functools.cache")
_CACHED: Final = re.compile(
    rf"^@({'|'.join(re.escape(d) for d in UNCACHE)})(?:\([^)\n]*\))?[ \t]*(?:#[^\n]*)?\n"
    r"(def (\w+)\()",
    re.MULTILINE)


def _mutated_files(name: str, root: Path) -> list[Path]:
    return [path for glob in module_of(name).sources
            for path in sorted(root.glob(glob if glob.endswith(".py") else glob + ".py"))]


def undecorated(name: str) -> list[str]:
    """``function (@decorator)`` of each function whose decorator the run moves or drops."""
    return [f"{function} (@{decorator})" for path in _mutated_files(name, ROOT)
            for pattern in (_DECORATED, _CACHED)
            for decorator, _, function in pattern.findall(path.read_text(encoding="utf-8"))]


def undecorate(source: str) -> str:
    """``source`` with each decorator of :data:`UNDECORATE` applied after its code instead,
    and each cache of :data:`UNCACHE` dropped."""
    moved = _DECORATED.findall(source)
    source = _CACHED.sub(r"\2", source)
    return _DECORATED.sub(r"\2", source) + "".join(
        f"\n{function} = {decorator}({function})  # moved by benchmarks/mutation.py\n"
        for decorator, _, function in moved)


def sources_hash(name: str) -> str:
    """What the mutants' names depend on: the mutated files' text (and which functions
    are mutated without their decorator: a run before that had none of their mutants)."""
    digest = hashlib.sha256()
    for path in _mutated_files(name, ROOT):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    texts = [path.read_text(encoding="utf-8") for path in _mutated_files(name, ROOT)]
    if any(_DECORATED.search(text) for text in texts):
        digest.update(repr(UNDECORATE).encode())
    if any(_CACHED.search(text) for text in texts):
        digest.update(repr(UNCACHE).encode())
    if sql_literals(name):  # their case mutants are not generated: the others' numbers move
        digest.update(b"no SQL case mutants")
    return digest.hexdigest()[:16]


def tests_of(name: str, *, baseline: bool = False) -> list[str]:
    """The module's test files, plus the mutation tests written for it (not in a baseline)."""
    module = name.partition(":")[0]
    if baseline:
        return list(module_of(name).tests)
    extra = sorted(str(p.relative_to(ROOT))
                   for p in (ROOT / "tests").glob(f"test_mutation_{module}*.py"))
    return [*module_of(name).tests, *extra]


def prepare(name: str, baseline: bool) -> Path:
    """A fresh scratch folder: a copy of the package, symlinks to the rest of the tree,
    and mutmut's config for ``name``."""
    work = SCRATCH / name.replace(":", "-")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for entry in ("tests", "pyproject.toml", *_ALSO):
        (work / entry).symlink_to(ROOT / entry)
    # a copy, not a link: the mutated files' decorators of UNDECORATE are moved in it
    shutil.copytree(ROOT / "icoframes", work / "icoframes",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for path in _mutated_files(name, work):
        text = path.read_text(encoding="utf-8")
        if _DECORATED.search(text) or _CACHED.search(text):
            path.write_text(undecorate(text), encoding="utf-8")
    lines = [
        "[mutmut]",
        "source_paths = icoframes",
        "only_mutate =", *(f"    {glob}" for glob in module_of(name).sources),
        # the suite's order is random elsewhere; here a fixed order keeps runs comparable
        "pytest_add_cli_args =", "    -p", "    no:randomly", "    -p", "    no:cacheprovider",
        *(f"    --deselect={test}" for test, _ in module_of(name).deselect),
        "pytest_add_cli_args_test_selection =",
        *(f"    {t}" for t in tests_of(name, baseline=baseline)),
        # a mutant that hangs (a loop that never ends, a wait never woken) is stopped
        # after 10 times its tests' measured time, plus 10 s
        "timeout_multiplier = 10",
        "timeout_constant = 10",
        "use_git_change_detection = false",
        # tests that read the docs beside the package (a feature's definition in a guide)
        "also_copy =", *(f"    {entry}" for entry in _ALSO),
    ]
    if module_of(name).skip:  # an empty key would read as one empty pattern: every line
        lines += ["do_not_mutate_patterns =", *(f"    {line}" for line, _ in module_of(name).skip)]
    (work / "setup.cfg").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return work


@dataclass
class Result:
    """One module's run: every mutant (path, name, status, diff) and how long it took."""

    name: str
    rows: list[dict[str, str]]
    seconds: float
    tests: list[str]
    baseline: bool
    sources: str = ""  # sources_hash() when it ran
    when: str = ""
    rechecked: str = ""  # when only the survivors of an earlier run were run again: its time
    commit: str = ""  # the tree the mutants were made from, when the run started
    # a run of a few files (parse:rules+dates): each file's sources_hash() when it started,
    # so that each can be rechecked alone (``parse:rules``) while the others change
    parts: dict[str, str] = dataclasses.field(default_factory=dict)


def saved(name: str, baseline: bool) -> Path:
    return SCRATCH / f"{name.replace(':', '-')}{'-before' if baseline else ''}.json"


def run(name: str, jobs: int, baseline: bool, only: list[str] | None = None) -> Result:
    work = prepare(name, baseline)
    tests = tests_of(name, baseline=baseline)
    what = f"{len(only)} survivors of" if only is not None else "mutating"
    log(f"{name}: {what} {', '.join(module_of(name).sources)} against {', '.join(tests)}")
    started = time.monotonic()
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sources, commit = sources_hash(name), tree_state()  # before: the tree may move meanwhile
    parts = {part: sources_hash(part) for part in parts_of(name)}
    with open(work / "run.log", "wb") as out:
        done = subprocess.run([sys.executable, "-c", mutmut_without_sql_case(), "run",
                               "--max-children", str(jobs), *(only or [])],
                              cwd=work, stdout=out, stderr=subprocess.STDOUT, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        tail = (work / "run.log").read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"mutmut failed on {name} (exit {done.returncode}):\n{tail}")
    rows = collect(work)
    if only is not None:
        rows = [row for row in rows if row["name"] in set(only)]
    log(f"{name}: {len(rows)} mutants in {seconds / 60:.1f} min")
    return Result(name, rows, seconds, tests, baseline, sources, when, commit=commit,
                  parts=parts)


def parts_of(name: str) -> list[str]:
    """``store:derived+ledger`` -> ``store:derived``, ``store:ledger``; [] for
    one file or a whole module."""
    module, _, files = name.partition(":")
    return [f"{module}:{file}" for file in files.split("+")] if "+" in files else []


def save_parts(result: Result) -> None:
    """Save each file of a run of a few files as a run of its own (not written to the
    report: the run's section is), so that ``--recheck`` can take one file alone."""
    for part, sources in result.parts.items():
        path = module_of(part).sources[0]
        rows = [row for row in result.rows if row["path"] == path]
        single = dataclasses.replace(result, name=part, rows=rows, sources=sources, parts={})
        saved(part, result.baseline).write_text(json.dumps(dataclasses.asdict(single)),
                                                encoding="utf-8")


def collect(work: Path) -> list[dict[str, str]]:
    """Every mutant of the last mutmut run in ``work``: path, name, status, diff."""
    collected = subprocess.run([sys.executable, "-c", _COLLECT], cwd=work, capture_output=True,
                               text=True, check=True)
    rows: list[dict[str, str]] = json.loads(collected.stdout)
    return rows


def collected(name: str, baseline: bool) -> Result:
    """The results a run left in its scratch folder (``--collect``: when the driver that
    started it did not get to write them)."""
    work = SCRATCH / name.replace(":", "-")
    log_file = work / "run.log"
    started = dt.datetime.fromtimestamp((work / "setup.cfg").stat().st_mtime, dt.UTC)
    ended = dt.datetime.fromtimestamp(log_file.stat().st_mtime, dt.UTC)
    return Result(name, collect(work), (ended - started).total_seconds(),
                  tests_of(name, baseline=baseline), baseline, sources_hash(name),
                  started.strftime("%Y-%m-%d %H:%M UTC"), commit=tree_state())


def merged(name: str, new: Result) -> Result:
    """The last saved run of ``name`` with what ``new`` (a recheck) checked of its survivors."""
    old = Result(**json.loads(saved(name, False).read_text(encoding="utf-8")))
    if old.sources != new.sources:
        raise SystemExit(f"{name}: the mutated files changed since the run of {old.when}")
    again = {row["name"]: row for row in new.rows if row["status"] != "not checked"}
    rows = [again.get(row["name"], row) if row["status"] not in ("killed", "timeout") else row
            for row in old.rows]
    return Result(name, rows, new.seconds, new.tests, False, old.sources, new.when,
                  rechecked=old.when, commit=new.commit)


def recheck(name: str, jobs: int) -> Result:
    """Run again only the mutants the last saved run of ``name`` did not kill.

    A killed mutant stays killed when tests are added, so the others are carried over;
    refused when the mutated files changed since (the mutants' numbers would not match).
    """
    path = next((p for p in (saved(name, False), saved(name, True)) if p.exists()), None)
    if path is None:
        raise SystemExit(f"{name}: no saved run to recheck; run it in full first")
    old = Result(**json.loads(path.read_text(encoding="utf-8")))
    if old.sources != sources_hash(name):
        raise SystemExit(f"{name}: the mutated files changed since the run of {old.when}; "
                         "run it in full")
    survivors = [row["name"] for row in old.rows if row["status"] not in ("killed", "timeout")]
    new = run(name, jobs, False, only=survivors)
    again = {row["name"]: row for row in new.rows}
    # mutants the module's skip list now leaves out are not generated any more: dropped
    generated = {row["name"] for row in collect(SCRATCH / name.replace(":", "-"))}
    rows = [again.get(row["name"], row) for row in old.rows if row["name"] in generated]
    return Result(name, rows, new.seconds, new.tests, False, old.sources, new.when,
                  rechecked=old.when, commit=new.commit)


def changed_lines(diff: str) -> str:
    """The lines a mutant changes, ``-old`` / ``+new``, stripped of indentation."""
    lines = [line for line in diff.splitlines()
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return " → ".join(f"`{line[1:].strip()}`" for line in lines)


# an SQL statement as this code base writes them: keywords in capitals
_SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WHERE|FROM|INTO|AND|VALUES|"
                  r"RETURNING|CASE WHEN)\b")
_QUOTED = re.compile(r"'[^']*'")  # a value in an SQL statement: its case is read


def sql_case_literal(old: str, new: str) -> bool:
    """Whether ``new`` only changes the letter case of ``old``, a Python string literal (its
    source, quotes included) holding an SQL statement, outside its quoted values: SQLite reads
    keywords, names and functions in any case, so the two are the same statement."""
    if old == new or old.lower() != new.lower() or "\"" not in old:
        return False
    literal = old[old.index('"') + 1:old.rindex('"')]
    changed = new[old.index('"') + 1:old.rindex('"')]
    return '"' not in literal and literal.count("'") % 2 == 0 and bool(_SQL.search(literal)) \
        and _QUOTED.findall(literal) == _QUOTED.findall(changed)


def sql_case_only(diff: str) -> bool:
    """Whether a mutant (its diff) only changes the letter case of SQL statements outside
    their quoted values (:func:`sql_case_literal`): an equivalent mutant. Runs since the
    case mutants of SQL are no longer generated (:data:`_MUTMUT`) have none."""
    lines = [line for line in diff.splitlines() if not line.startswith(("+++", "---"))]
    old = [line[1:] for line in lines if line.startswith("-")]
    new = [line[1:] for line in lines if line.startswith("+")]
    return (len(old) == len(new) > 0 and old != new
            and all(o.lower() == n.lower() and (o == n or _sql_literal(o, n))
                    for o, n in zip(old, new, strict=True)))


def _sql_literal(old: str, new: str) -> bool:
    """Whether the changed letters of the line ``old`` lie in one string literal that
    :func:`sql_case_literal` reads as SQL."""
    first = next(i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b)
    last = max(i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b)
    start, end = old.rfind('"', 0, first), old.find('"', last)
    return start >= 0 and end >= 0 and sql_case_literal(old[start:end + 1], new[start:end + 1])


def sql_literals(name: str) -> list[str]:
    """The string literals of ``name``'s mutated files whose case mutants are equivalent
    (:func:`sql_case_literal`), so not generated."""
    found = []
    for path in _mutated_files(name, ROOT):
        tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
        # mutmut mutates plain literals only, not f-strings
        found += [token.string for token in tokens if token.type == tokenize.STRING
                  and "f" not in token.string[:len(token.string) - len(token.string.lstrip(
                      "rbufRBUF"))].lower()
                  and any(sql_case_literal(token.string, case(token.string))
                          for case in (str.lower, str.upper))]
    return found


def mutmut_without_sql_case(*, run: bool = True) -> str:
    """Python code running mutmut's command line with its string mutator leaving out the
    case changes of SQL statements (:func:`sql_case_literal`): equivalent mutants, which
    no test can kill, are not made rather than excused in the report. ``run=False``: only
    the patch (for a test)."""
    return "\n".join([
        "import re, sys",
        "import mutmut.mutation.mutators as mutators",
        f"_SQL = re.compile({_SQL.pattern!r})",
        f"_QUOTED = re.compile({_QUOTED.pattern!r})",
        inspect.getsource(sql_case_literal),
        "def _operator_string(node, _original=mutators.operator_string):",
        "    return (new for new in _original(node)",
        "            if not sql_case_literal(node.value, new.value))",
        "mutators.mutation_operators[:] = [",
        "    (kind, _operator_string if op is mutators.operator_string else op)",
        "    for kind, op in mutators.mutation_operators]",
        *(["from mutmut.__main__ import cli", "sys.argv[0] = 'mutmut'", "sys.exit(cli())"]
          if run else []), ""])


def function_of(mutant: str) -> str:
    """``icoframes.store.cache.xǁCacheǁget__mutmut_3`` -> ``Cache.get``."""
    last = mutant.split("__mutmut_")[0].rsplit(".", 1)[-1]
    if last.startswith("xǁ"):
        return last[2:].replace("ǁ", ".")
    return last.removeprefix("x_")


def section(result: Result) -> str:
    name, rows = result.name, result.rows
    minutes = result.seconds / 60
    title = f"{name}: before (without tests/test_mutation_*)" if result.baseline else name
    out = [f"### {title}", "",
           f"{result.when}, commit {result.commit or '?'}, "
           f"{minutes:.1f} min; tests: {', '.join(f'`{t}`' for t in result.tests)}."
           + (f" Only the survivors of the run of {result.rechecked} were run again (the "
              "mutated files unchanged since); its killed mutants are carried over."
              if result.rechecked else ""), "",
           "| file | mutants | not checked | killed | survived | timeout | no tests | other "
           "| killed % of checked |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    by_path: dict[str, Counter[str]] = {}
    for row in rows:
        by_path.setdefault(row["path"], Counter())[row["status"]] += 1
    total: Counter[str] = Counter()
    for path, counts in sorted(by_path.items()):
        total.update(counts)
        out.append(_row(path, counts))
    if len(by_path) > 1:
        out.append(_row("**all**", total))
    for function in undecorated(name):
        out += ["", f"Mutated without its decorator: `{function}` (mutmut does not mutate a "
                "decorated function; the scratch copy applies it after the module's code, or "
                "drops it if it is a cache)."]
    for line, why in module_of(name).skip:
        out += ["", f"Not mutated: statements starting on lines matching `{line}`: {why}."]
    for test, why in module_of(name).deselect:
        out += ["", f"Not run: `{test}`: {why}."]
    survivors = [row for row in rows
                 if row["status"] not in ("killed", "timeout", "not checked")]
    out += ["", f"Not killed ({len(survivors)}):", ""]
    if sql := sum(sql_case_only(row["diff"]) for row in survivors):
        checked = sum(row["status"] != "not checked" for row in rows)
        killed = sum(row["status"] in ("killed", "timeout") for row in rows)
        out += [f"{sql} of them (marked *SQL case*) only change the letter case of an SQL "
                "statement without quoted values: SQLite reads keywords, names and functions "
                "in any case, so no test can tell them from the code. Without them: "
                f"{100 * killed / (checked - sql):.1f} % killed ({killed} of {checked - sql}).",
                ""]
    for row in survivors:
        function = function_of(row["name"])
        mark = " *SQL case*" if sql_case_only(row["diff"]) else ""
        out.append(f"- {row['status']}{mark}: `{row['name'].removeprefix('icoframes.')}` "
                   f"({function}): {changed_lines(row['diff'])}")
    return "\n".join(out) + "\n"


def _row(path: str, counts: Counter[str]) -> str:
    n = sum(counts.values())
    unchecked = counts["not checked"]  # a run stopped before them (--collect)
    checked = n - unchecked
    # a timeout is a kill (the mutant made the tests hang); "no tests" and the rest are not
    killed = counts["killed"] + counts["timeout"]
    other = checked - killed - counts["survived"] - counts["no tests"]
    rate = f"{100 * killed / checked:.1f}" if checked else "–"
    return (f"| {path} | {n} | {unchecked} | {counts['killed']} | {counts['survived']} "
            f"| {counts['timeout']} | {counts['no tests']} | {other} | {rate} |")


def write(sections: dict[str, str]) -> None:
    """Replace each module's marked section in the report, keeping everything else."""
    SCRATCH.mkdir(exist_ok=True)
    with FileLock(SCRATCH / "report.lock"):  # runs of two modules side by side
        _write(sections)


def _write(sections: dict[str, str]) -> None:
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else "# Mutation testing\n"
    for name, body in sections.items():
        begin, end = f"<!-- mutate:{name} -->", f"<!-- /mutate:{name} -->"
        block = f"{begin}\n{body}{end}"
        if begin in text and end in text:
            text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    REPORT.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", default=["all"],
                        help=f"all, or some of: {', '.join(MODULES)}; one file of a "
                             "package as parse:units or cachedir:housekeeping, a few as "
                             "parse:rules+dates")
    parser.add_argument("--baseline", action="store_true",
                        help="without tests/test_mutation_*: the rate before them, written "
                             "to a section of its own")
    parser.add_argument("--recheck", action="store_true",
                        help="run again only the survivors of the last run (after adding "
                             "tests); the rest of its results are kept")
    parser.add_argument("--collect", action="store_true",
                        help="write the results a finished run left in .mutate/<module>/ "
                             "without running anything (with --baseline if it was one)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("MUTATE_JOBS", "1")),
                        help="mutants run at once (default 1, or $MUTATE_JOBS)")
    args = parser.parse_args(argv)
    names = list(MODULES) if args.modules == ["all"] else args.modules
    unknown = [n for n in names if n.partition(":")[0] not in MODULES
               or (":" in n and not all(list(ROOT.glob(glob)) for glob in module_of(n).sources))]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}: "
                     f"choose from all, {', '.join(MODULES)}")
    for name in names:
        # one module at a time, written as soon as it is done: a long run interrupted
        # keeps what it measured
        key = f"{name}:before" if args.baseline else name
        if args.collect and args.recheck:  # a recheck stopped before its end
            result = merged(name, collected(name, False))
        elif args.collect:
            result = collected(name, args.baseline)
        elif args.recheck:
            result = recheck(name, args.jobs)
        else:
            result = run(name, args.jobs, args.baseline)
        saved(name, args.baseline).write_text(json.dumps(dataclasses.asdict(result)),
                                              encoding="utf-8")
        save_parts(result)
        write({key: section(result)})
        log(f"{name}: written to {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
