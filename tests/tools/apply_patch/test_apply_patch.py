"""apply_patch on real files: multi-file patches, context that does not match, no partial
write, paths kept inside the workspace, line ends kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.tools.apply_patch import ApplyPatchAction, ApplyPatchExecutor


def _apply(workspace: Path, patch: str):
    return ApplyPatchExecutor(str(workspace))(ApplyPatchAction(patch=patch))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_multi_file_patch_adds_updates_moves_and_deletes(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    print('hello')\n    return 0\n\n\n"
        "def helper():\n    return 1\n"
    )
    (workspace / "notes.txt").write_text("keep\nold\n")
    (workspace / "obsolete.txt").write_text("bye\n")
    patch = """*** Begin Patch
*** Add File: docs/README.md
+# Title
+body
*** Update File: src/app.py
@@ def main():
-    print('hello')
+    print('hello, world')
     return 0
@@ def helper():
-    return 1
+    return 2
*** Update File: notes.txt
*** Move to: archive/notes.txt
 keep
-old
+new
*** Delete File: obsolete.txt
*** End Patch"""

    result = _apply(workspace, patch)

    assert not result.is_error, result.text
    assert (workspace / "docs" / "README.md").read_text() == "# Title\nbody\n"
    assert (workspace / "src" / "app.py").read_text() == (
        "import os\n\n\ndef main():\n    print('hello, world')\n    return 0\n\n\n"
        "def helper():\n    return 2\n"
    )
    assert (workspace / "archive" / "notes.txt").read_text() == "keep\nnew\n"
    assert not (workspace / "notes.txt").exists()
    assert not (workspace / "obsolete.txt").exists()
    assert set(result.changed) == {
        "A docs/README.md",
        "M src/app.py",
        "D notes.txt",
        "A archive/notes.txt (moved from notes.txt)",
        "D obsolete.txt",
    }
    assert result.fuzz == 0


def test_context_that_does_not_match_is_a_clear_error_and_changes_no_file(
    workspace: Path,
) -> None:
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    (workspace / "b.py").write_text("def f():\n    return 'b'\n")
    before = _snapshot(workspace)
    patch = """*** Begin Patch
*** Update File: a.py
-x = 1
+x = 10
*** Add File: c.py
+created = True
*** Update File: b.py
 def f():
-    return 'B'
+    return 'c'
*** End Patch"""

    result = _apply(workspace, patch)

    assert result.is_error
    assert "In b.py" in result.text and "does not match" in result.text
    assert "    return 'B'" in result.text  # the lines it looked for
    assert "nothing was changed" in result.text
    assert _snapshot(workspace) == before  # a.py not updated, c.py not created


def test_a_missing_anchor_line_names_it(workspace: Path) -> None:
    (workspace / "a.py").write_text("def f():\n    pass\n")

    result = _apply(
        workspace,
        "*** Begin Patch\n*** Update File: a.py\n@@ def g():\n-    pass\n+    return\n"
        "*** End Patch",
    )

    assert result.is_error and "'def g():'" in result.text


def test_trailing_whitespace_differences_still_apply_and_are_counted_as_fuzz(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("one   \ntwo\n")

    result = _apply(
        workspace, "*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TWO\n*** End Patch"
    )

    assert not result.is_error, result.text
    assert (workspace / "a.txt").read_text() == "one   \nTWO\n"
    assert result.fuzz > 0


def test_crlf_line_ends_and_a_missing_final_newline_are_kept(workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"a\r\nb\r\nc")

    result = _apply(
        workspace, "*** Begin Patch\n*** Update File: w.txt\n a\n-b\n+B\n c\n*** End Patch"
    )

    assert not result.is_error, result.text
    assert (workspace / "w.txt").read_bytes() == b"a\r\nB\r\nc"


def test_end_of_file_anchors_a_hunk_at_the_end(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x\nend\nx\nend\n")

    result = _apply(
        workspace,
        "*** Begin Patch\n*** Update File: a.txt\n x\n-end\n+END\n*** End of File\n*** End Patch",
    )

    assert not result.is_error, result.text
    assert (workspace / "a.txt").read_text() == "x\nend\nx\nEND\n"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd"])
def test_paths_outside_the_workspace_are_refused(workspace: Path, path: str) -> None:
    result = _apply(workspace, f"*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch")

    assert result.is_error and "outside the workspace" in result.text
    assert not (workspace.parent / "outside.txt").exists()


def test_adding_an_existing_file_or_deleting_a_missing_one_is_refused(workspace: Path) -> None:
    (workspace / "here.txt").write_text("x\n")

    added = _apply(workspace, "*** Begin Patch\n*** Add File: here.txt\n+y\n*** End Patch")
    deleted = _apply(workspace, "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch")

    assert added.is_error and "exists already" in added.text
    assert deleted.is_error and "no such file" in deleted.text
    assert (workspace / "here.txt").read_text() == "x\n"


def test_a_patch_without_its_envelope_says_what_is_expected(workspace: Path) -> None:
    result = _apply(workspace, "*** Update File: a.txt\n-x\n+y\n")

    assert result.is_error and "*** Begin Patch" in result.text


def test_a_file_that_cannot_be_read_fails_the_whole_patch(workspace: Path) -> None:
    (workspace / "ok.txt").write_text("a\n")
    (workspace / "blocker").write_text("a file, not a folder\n")
    before = _snapshot(workspace)

    result = _apply(
        workspace,
        "*** Begin Patch\n*** Update File: ok.txt\n-a\n+b\n"
        "*** Add File: blocker/new.txt\n+x\n*** End Patch",
    )

    assert result.is_error and "no file was changed" in result.text
    assert _snapshot(workspace) == before


def test_file_modes_are_kept(workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo a\n")
    script.chmod(0o755)

    _apply(workspace, "*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** End Patch")

    assert script.read_text() == "echo b\n"
    assert script.stat().st_mode & 0o777 == 0o755
