"""Tests of scripts/check-layers.py, run by scripts/test.sh:

    python3 -I -B -m unittest discover -s scripts -p 'test_*.py'

Each fixture is a small workspace written to a temporary folder, checked
by the real script as a subprocess, as CI runs it.
"""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check-layers.py"

LIB = """\
//! A fixture crate.
//!
//! # Layers
//!
//! Top first:
//!
//! 1. `crate`, `web`: the root and the pages;
//! 2. `load`: the inputs.

pub mod load;
pub mod web;
"""

WEB = """\
use crate::load::read;

pub fn page() -> u32 {
    read()
}
"""


def run(files):
    """(exit status, stdout, stderr) of the checker on a workspace of one
    crate, `app`, made of `files` ({path under the workspace: text})."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {"Cargo.toml": '[workspace]\nmembers = ["app"]\n', **files}
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        done = subprocess.run(
            [sys.executable, "-I", str(SCRIPT), "--root", str(root)], capture_output=True, text=True, check=False
        )
        return done.returncode, done.stdout, done.stderr


class CheckLayers(unittest.TestCase):
    def test_imports_that_point_down_pass(self):
        code, out, err = run({"app/src/lib.rs": LIB, "app/src/web.rs": WEB, "app/src/load.rs": "pub fn read() -> u32 { 1 }\n"})
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(
            out,
            "check-layers: every import points down its crate's layers; no source file over 600 lines "
            "without a reason; the docs within their bounds\n",
        )

    def test_an_import_that_points_up_fails_with_the_import_and_both_layers(self):
        load = """\
        use crate::web::page;

        pub fn read() -> u32 {
            1
        }

        pub fn twice() -> u32 {
            2 * page()
        }
        """
        code, out, err = run({"app/src/lib.rs": LIB, "app/src/web.rs": "pub fn page() -> u32 { 1 }\n", "app/src/load.rs": load})
        self.assertEqual(code, 1)
        self.assertEqual(
            out,
            "app/src/load.rs:1: `crate::web::page` points up: load (layer 2) imports from web (layer 1); "
            "the layers are listed in app/src/lib.rs\n",
        )
        self.assertEqual(err, "check-layers: 1 problem(s)\n")

    def test_a_circle_through_a_glob_import_of_the_root_fails(self):
        # `use crate::*` brings `web` into scope, so `web::page` below names
        # it without a path the checker could otherwise see.
        load = """\
        use crate::*;

        pub fn read() -> u32 {
            1
        }

        pub fn twice() -> u32 {
            2 * web::page()
        }
        """
        code, out, err = run({"app/src/lib.rs": LIB, "app/src/web.rs": WEB, "app/src/load.rs": load})
        self.assertEqual(code, 1)
        self.assertEqual(
            out,
            "app: a module circle of 2 files: app/src/load.rs, app/src/web.rs\n"
            "  app/src/load.rs -> app/src/web.rs (line 8)\n"
            "  app/src/web.rs -> app/src/load.rs (line 1)\n"
            "app/src/load.rs:1: `crate::*` points up: load (layer 2) imports from crate (layer 1); "
            "the layers are listed in app/src/lib.rs\n"
            "app/src/load.rs:8: `web::page` points up: load (layer 2) imports from web (layer 1); "
            "the layers are listed in app/src/lib.rs\n",
        )
        self.assertEqual(err, "check-layers: 3 problem(s)\n")

    def test_a_module_the_list_leaves_out_fails(self):
        lib = LIB + "pub mod stats;\n"
        code, out, _ = run({"app/src/lib.rs": lib, "app/src/web.rs": WEB, "app/src/load.rs": "pub fn read() -> u32 { 1 }\n", "app/src/stats.rs": ""})
        self.assertEqual(code, 1)
        self.assertEqual(out, "app/src/lib.rs: `# Layers` leaves out `stats` (app/src/stats.rs); place it in a layer\n")

    def test_a_contributing_table_row_in_another_layer_fails(self):
        contributing = """\
        | folder | layer | what it holds |
        | --- | --- | --- |
        | `app/src/web.rs` | 1 | the pages |
        | `app/src/load.rs` | 1 | the inputs |
        """
        files = {"app/src/lib.rs": LIB, "app/src/web.rs": WEB, "app/src/load.rs": "pub fn read() -> u32 { 1 }\n"}
        code, out, _ = run({**files, "CONTRIBUTING.md": contributing})
        self.assertEqual(code, 1)
        self.assertEqual(
            out, "CONTRIBUTING.md:4: the table puts `app/src/load.rs` in layer 1, the `# Layers` of app/src/lib.rs in layer 2\n"
        )

    def test_benchmarks_md_over_300_lines_fails(self):
        files = {"app/src/lib.rs": LIB, "app/src/web.rs": WEB, "app/src/load.rs": "pub fn read() -> u32 { 1 }\n"}
        code, out, _ = run({**files, "docs/benchmarks.md": "a line\n" * 301})
        self.assertEqual(code, 1)
        self.assertEqual(
            out, "docs/benchmarks.md: 301 lines, over its bound of 300; replace a superseded measurement rather than add beside it\n"
        )
        code, _, _ = run({**files, "docs/benchmarks.md": "a line\n" * 300})
        self.assertEqual(code, 0)

    def test_a_changelog_entry_over_two_lines_fails(self):
        files = {"app/src/lib.rs": LIB, "app/src/web.rs": WEB, "app/src/load.rs": "pub fn read() -> u32 { 1 }\n"}
        changelog = "# Changelog\n\n### Added\n\n- One line.\n- Two\n  lines.\n- Three\n  whole\n  lines.\n"
        code, out, _ = run({**files, "CHANGELOG.md": changelog})
        self.assertEqual(code, 1)
        self.assertEqual(
            out,
            "CHANGELOG.md:8: an entry of 3 lines, over 2; say it in a line or two and leave the details to the docs\n",
        )

    def test_the_repository_passes(self):
        done = subprocess.run([sys.executable, "-I", str(SCRIPT)], capture_output=True, text=True, check=False)
        self.assertEqual((done.returncode, done.stderr), (0, ""), done.stdout)


if __name__ == "__main__":
    unittest.main()
