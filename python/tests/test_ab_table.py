"""bench/ab_table.py: runs ordered by their number, prev and new apart, one line per program."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import ab_table  # noqa: E402


class AbTable(unittest.TestCase):
    def test_runs_in_order_by_build(self):
        with tempfile.TemporaryDirectory() as d:
            runs = [(10, "prev", 8, 10.0), (2, "new", 8, 9.0), (3, "new", 8, 9.5), (1, "prev", 8, 11.0)]
            for n, which, seed, us in runs:
                programs = [{"name": "031 reduce/amin", "solder_us": us, "status": "ok"},
                            {"name": "098 reduce/amax", "solder_us": None, "status": "solder_error"}]
                with open(os.path.join(d, f"r{n}-{which}-{seed}.json"), "w") as f:
                    json.dump({"programs": programs}, f)
            lines = ab_table.table(d)
        self.assertEqual(len(lines), 2)
        self.assertRegex(lines[0], r"^seed  8 031 reduce/amin .* prev +11\.0 +10\.0 new +9\.0 +9\.5 \['ok', 'ok'\]$")
        self.assertIn("nan", lines[1])
        self.assertIn("solder_error", lines[1])


if __name__ == "__main__":
    unittest.main()
