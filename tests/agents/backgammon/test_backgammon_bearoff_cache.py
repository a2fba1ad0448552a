"""The bear-off table kept in the user's cache folder: saved once, checked when loaded, made
again when the saved copy is missing, damaged or does not follow from the rules."""

import numpy as np
import pytest

from boardgym.agents import files
from boardgym.agents.backgammon import bearoff as bo


@pytest.fixture(scope="module")
def table():
    return bo.table()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty cache folder for bo.table(), and no table loaded in this process."""
    monkeypatch.setenv(files.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(bo, "_TABLE", None)
    return tmp_path / "cache"


def _counting_generate(monkeypatch, table):
    calls = []

    def generate():
        calls.append(1)
        return table.copy()

    monkeypatch.setattr(bo, "generate", generate)
    return calls


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(files.CACHE_ENV, str(tmp_path / "x"))
    assert files.cache_dir() == tmp_path / "x"
    monkeypatch.delenv(files.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert files.cache_dir() == tmp_path / "xdg" / "boardgym"


def test_saved_table_loads_back_exactly(table, tmp_path):
    path = tmp_path / bo.FILE_NAME
    bo.save(table, path)
    assert np.array_equal(bo.load_saved(path), table)
    assert not list(tmp_path.glob("*.tmp*"))  # written under a temporary name, then renamed


def test_generated_once_then_loaded(table, folder, monkeypatch):
    calls = _counting_generate(monkeypatch, table)
    first = bo.table()
    assert calls == [1] and (folder / bo.FILE_NAME).is_file()
    assert not first.flags.writeable
    monkeypatch.setattr(bo, "_TABLE", None)  # a later process
    assert np.array_equal(bo.table(), table) and calls == [1]


def test_a_damaged_file_is_refused_and_replaced(table, folder, monkeypatch):
    folder.mkdir()
    path = folder / bo.FILE_NAME
    bo.save(table, path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte inside the table
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged one .*CRC"):
        bo.load_saved(path)
    calls = _counting_generate(monkeypatch, table)
    assert np.array_equal(bo.table(), table) and calls == [1]
    assert np.array_equal(bo.load_saved(path), table)  # written again


def test_a_truncated_or_foreign_file_is_refused(table, tmp_path):
    path = tmp_path / bo.FILE_NAME
    bo.save(table, path)
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="not a saved bear-off table"):
        bo.load_saved(path)
    np.savez(path, table=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="shape"):
        bo.load_saved(path)


def test_a_row_that_does_not_follow_from_the_rules_is_refused(table, tmp_path):
    """A sound file (its CRC-32 matches, each distribution sums to 1) of a table made
    under other rules: a checked row moved by one roll is found by its recurrence."""
    _, pips = bo._positions()
    row = bo._checked_rows(pips)[100]
    wrong = table.copy()
    wrong[row, : bo.N_ROLLS] = np.roll(table[row, : bo.N_ROLLS], 1)
    path = tmp_path / bo.FILE_NAME
    bo.save(wrong, path)
    with pytest.raises(ValueError, match="does not follow from the rules"):
        bo.load_saved(path)


def test_an_unwritable_cache_folder_still_gives_the_table(table, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(files.CACHE_ENV, str(blocker / "cache"))
    monkeypatch.setattr(bo, "_TABLE", None)
    calls = _counting_generate(monkeypatch, table)
    assert np.array_equal(bo.table(), table) and calls == [1]
