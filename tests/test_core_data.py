"""Row numbers in data errors point at the line a person opens the file at."""

import pytest

from rlvr_envs.data import numbered_records, read_file, read_file_numbered, require_fields, source_name
from rlvr_envs.errors import DataError


def test_jsonl_rows_keep_their_file_line_across_blank_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"q": "a", "a": 1}\n\n\n{"q": "b"}\n\n{"q": "c", "a": 3}\n')
    numbered = read_file_numbered(path)
    assert [n for n, _ in numbered] == [1, 4, 6]
    assert [r for _, r in numbered] == read_file(path)
    with pytest.raises(DataError, match=r"rows.jsonl row 4: no column 'a'"):
        for number, row in numbered_records(path):
            require_fields(row, {"prompt": "q", "answer": "a"}, source=source_name(path), row_number=number)


def test_csv_rows_are_numbered_by_line_with_quoted_newlines(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('q,a\n"two\nlines",1\nthree,\n')
    assert [n for n, _ in read_file_numbered(path)] == [2, 4]


def test_lists_are_numbered_from_one_and_limit_applies():
    rows = [{"q": str(i)} for i in range(5)]
    assert [n for n, _ in numbered_records(rows, limit=3)] == [1, 2, 3]
    with pytest.raises(DataError, match="limit="):
        numbered_records(rows, limit=-1)
