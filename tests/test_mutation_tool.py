"""benchmarks/mutation.py: what `make mutate` mutates (no mutation run here)."""

from __future__ import annotations

import json

import pytest

from benchmarks import mutation
from icoframes.errors import InvalidParameter
from icoframes.queries import checked_keywords


def test_a_keyword_checking_decorator_is_applied_after_the_code_so_mutmut_mutates_the_body():
    # mutmut skips a decorated function: to_usd's and compute_features' bodies went
    # unmutated once they gained @checked_keywords
    source = ("@checked_keywords\ndef f(*, a=1):\n    return a\n\n\n"
              "@other\ndef g():\n    pass\n")
    moved = mutation.undecorate(source)
    assert "@checked_keywords" not in moved and moved.startswith("def f(*, a=1):")
    assert "@other\ndef g():" in moved  # another decorator stays where it is
    namespace = {"checked_keywords": checked_keywords, "other": lambda function: function}
    exec(compile(moved, "<moved>", "exec"), namespace)
    assert namespace["f"](a=2) == 2
    with pytest.raises(InvalidParameter,
                       match=r"^aa is not a keyword of f\(\); did you mean 'a'\?$"):
        namespace["f"](aa=2)


def test_the_modules_whose_public_function_checks_its_keywords_name_it():
    assert mutation.undecorated("money") == ["to_usd (@checked_keywords)"]
    assert mutation.undecorated("features") == ["describe_features (@checked_keywords)",
                                                 "compute_features (@checked_keywords)"]
    assert mutation.undecorated("gate") == []


def test_a_cache_is_dropped_so_that_mutmut_mutates_the_function():
    # read_label's lru_cache hid its body from mutmut; a cache filled by the unmutated code
    # in the process mutmut forks from would also hide a mutant, so it is dropped, not moved
    source = ("@lru_cache(maxsize=4096)  # a comment beside it\ndef f(a):\n    return a\n\n\n"
              "@functools.cache\ndef g():\n    pass\n")
    dropped = mutation.undecorate(source)
    assert dropped == "def f(a):\n    return a\n\n\ndef g():\n    pass\n"
    assert mutation.undecorated("parse") == ["currency_codes (@functools.lru_cache)",
                                             "_item_codes (@functools.lru_cache)",
                                             "read_label (@lru_cache)",
                                             "tidy (@checked_keywords)",
                                             "_column_unit (@lru_cache)"]
    assert mutation.undecorated("parse:profiles") == ["tidy (@checked_keywords)"]  # moved
    assert mutation.undecorated("parse:unitcols") == ["_column_unit (@lru_cache)"]  # moved
    assert mutation.undecorated("parse:units") == []
    assert mutation.undecorated("parse:prices") == []


def test_a_few_files_of_a_package_in_one_run():
    assert mutation.module_of("parse:rules+dates").sources == ("icoframes/parse/rules.py",
                                                               "icoframes/parse/dates.py")
    assert mutation.module_of("parse:units").sources == ("icoframes/parse/units.py",)
    assert mutation.module_of("parse:rules+dates").tests == mutation.MODULES["parse"].tests
    with pytest.raises(SystemExit):  # argparse: an unknown file of the package
        mutation.main(["parse:rules+nothing"])


def test_a_survivor_that_only_changes_the_case_of_an_sql_statement_is_marked():
    def diff(old: str, new: str) -> str:
        return f"--- a\n+++ b\n@@ -1 +1 @@\n-{old}\n+{new}\n"

    sql = '        self._change("UPDATE ledgers SET sent = max(0, sent - 1) WHERE key = ?")'
    assert mutation.sql_case_only(diff(sql, sql.replace("UPDATE ledgers SET", "update ledgers set")
                                       .replace("WHERE", "where")))
    assert mutation.sql_case_only(diff('    "WHERE key = ?")', '    "WHERE KEY = ?")'))
    # a quoted value's case matters; a message is no SQL; a changed value is no case change
    quoted = "conn.execute(\"UPDATE meta SET value = ? WHERE key = 'removed'\")"
    assert not mutation.sql_case_only(diff(quoted, quoted.upper()))
    assert not mutation.sql_case_only(diff('raise Err("sent from this cache dir")',
                                           'raise Err("SENT FROM THIS CACHE DIR")'))
    assert not mutation.sql_case_only(diff('"SELECT id FROM t WHERE v > ?"',
                                           '"SELECT id FROM t WHERE v >= ?"'))
    assert not mutation.sql_case_only("")
    assert mutation.sql_case_only(diff('  "AND expires > ? AND expires <= ?",',
                                       '  "and expires > ? and expires <= ?",'))
    assert mutation.sql_case_only(diff('conn.execute("PRAGMA journal_mode=WAL")',
                                       'conn.execute("pragma journal_mode=wal")'))
    assert not mutation.sql_case_only(diff(  # the Python value compared, not the statement
        'if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":',
        'if conn.execute("PRAGMA journal_mode").fetchone()[0] != "WAL":'))


def test_case_mutants_of_sql_statements_are_not_generated():
    # SQLite reads keywords, names and functions in any case: such mutants are equivalent,
    # so the run leaves them out instead of excusing them in the report
    for tool in ("mutmut", "libcst"):  # `make mutate` installs them; `make install` does not
        pytest.importorskip(tool, reason=f"{tool} is installed by `make mutate` only")
    import libcst as cst

    namespace: dict[str, object] = {}
    exec(compile(mutation.mutmut_without_sql_case(run=False), "<patch>", "exec"), namespace)
    operator = namespace["_operator_string"]

    def mutants(literal: str) -> list[str]:
        return [node.value for node in operator(cst.SimpleString(literal))]  # type: ignore[operator]

    assert mutants('"SELECT id FROM t WHERE v > ?"') == ['"XXSELECT id FROM t WHERE v > ?XX"']
    # a quoted value's case is read: only the case change that keeps it is left out
    assert mutants("\"SELECT value FROM meta WHERE key = 'converted'\"") == [
        "\"XXSELECT value FROM meta WHERE key = 'converted'XX\"",
        "\"SELECT VALUE FROM META WHERE KEY = 'CONVERTED'\""]
    assert mutants('"sent from this cache dir"') == [  # a message is no SQL
        '"XXsent from this cache dirXX"', '"SENT FROM THIS CACHE DIR"']
    assert mutants('"wal"') == ['"XXwalXX"', '"WAL"']  # a value compared in Python
    assert mutation.sql_case_literal('"PRAGMA journal_mode=WAL"', '"pragma journal_mode=wal"')
    assert not mutation.sql_case_literal('" \'$.id\') AS id FROM t"', '" \'$.ID\') AS ID FROM T"')
    assert not mutation.sql_case_literal("\"= 'a WHERE\"", "\"= 'A where\"")  # a value torn
    # the 485's UPDATE in two (020684e); the booking's upsert ends two ways: " AND refused_at
    # IS NULL RETURNING sent" alone, " RETURNING sent" in the transaction (f783f51)
    assert len(mutation.sql_literals("store:ledger")) == 17
    assert mutation.sql_literals("money") == mutation.sql_literals("store:derived") == []


def test_a_run_of_a_few_files_is_saved_per_file_too(tmp_path, monkeypatch):
    assert mutation.parts_of("store:derived+ledger") == ["store:derived", "store:ledger"]
    assert mutation.parts_of("store:ledger") == mutation.parts_of("store") == []
    monkeypatch.setattr(mutation, "SCRATCH", tmp_path)
    rows = [{"path": f"icoframes/store/{file}.py", "name": file, "status": "killed", "diff": ""}
            for file in ("derived", "ledger", "derived")]
    mutation.save_parts(mutation.Result("store:derived+ledger", rows, 1.0, [], False,
                                        "all", parts={"store:derived": "d",
                                                      "store:ledger": "l"}))
    derived = mutation.Result(**json.loads((tmp_path / "store-derived.json").read_text()))
    assert (derived.name, derived.sources, len(derived.rows)) == ("store:derived", "d", 2)
    ledger = json.loads((tmp_path / "store-ledger.json").read_text())
    assert ledger["sources"] == "l" and ledger["rows"] == rows[1:2]


def test_the_cache_dir_keeps_its_mutation_run_and_direct_tests_after_leaving_the_store():
    # housekeeping.py and legacy.py moved from store/ to cachedir/ (issue 18): store's run
    # no longer mutates them, so cachedir has its own, judged by the store's tests and its
    # own tests/test_mutation_cachedir*.py (the direct tests written for those two files)
    module = mutation.module_of("cachedir")
    assert module.sources == ("icoframes/cachedir/*",)
    assert module.tests == mutation.module_of("store").tests
    assert module.deselect == mutation.module_of("store").deselect
    assert [p.name for p in mutation._mutated_files("cachedir:housekeeping+legacy",
                                                     mutation.ROOT)] == ["housekeeping.py",
                                                                         "legacy.py"]
    assert mutation.tests_of("cachedir")[len(module.tests):] == [
        "tests/test_mutation_cachedir.py", "tests/test_mutation_cachedir_housekeeping.py",
        "tests/test_mutation_cachedir_housekeeping_mark.py",
        "tests/test_mutation_cachedir_legacy.py"]
    assert not any("cachedir" in test or "housekeeping" in test or "legacy" in test
                   for test in mutation.tests_of("store")[len(module.tests):])


def test_the_attempts_of_a_request_have_their_mutation_run_and_direct_tests():
    # api/attempts.py (whether a failed request is sent again, and when) had no entry
    module = mutation.module_of("attempts")
    assert module.sources == ("icoframes/api/attempts.py",)
    assert (mutation.ROOT / "tests" / "test_mutation_attempts.py").is_file()
