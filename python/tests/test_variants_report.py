"""bench/variants.py's report: what a worst program's own figures say (its `figures:` line)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import variants  # noqa: E402


def record(**kw):
    r = {"bytes": 64e6, "copy_us": 20.0, "pct_copy": 75.0, "launches": ["solder_pw_add_0"],
         "plans": ["pointwise vec=8 threads=256 unroll=1"]}
    r.update(kw)
    return r


class FiguresSay(unittest.TestCase):
    def test_each_fact_once(self):
        said = variants.figures_say(record(bytes=1.5e6, copy_us=4.5, pct_copy=95.0, compile_host_bound=True,
                                           launches=["view", "solder_a_0", "solder_b_1"],
                                           plans=["pointwise vec=1 threads=192 unroll=1", "inner vec=4"]))
        self.assertIn("small (1.5 MB): a same-bytes copy takes 4.5 us", said)
        self.assertIn("at 95 % of a same-bytes copy", said)
        self.assertIn("torch.compile's figure holds host time", said)
        self.assertIn("2 launches", said)  # views are no launches
        self.assertIn("vec=1", said)

    def test_a_cat_written_in_place_is_no_launch(self):
        said = variants.figures_say(record(launches=["solder_transpose_tanh_0", "cat (in place)"]))
        self.assertNotIn("launches", said)

    def test_large_and_slow(self):
        said = variants.figures_say(record(bytes=268e6, pct_copy=43.3))
        self.assertEqual(said, "43 % of a same-bytes copy at 268 MB: the kernel, not the bytes, sets the time")

    def test_nothing_to_say(self):
        # vec=16 is no vec=1; 75 % of a copy at 64 MB is neither at the copy nor far under it.
        self.assertEqual(variants.figures_say(record(plans=["pointwise vec=16 threads=256"])),
                         "none of the usual: see --explain")


class ElementReads(unittest.TestCase):
    EXPLAIN = ("segment 0 kernel solder_red_abs_0 (inner-reduction)\n"
               "    params: vec=4 threads=512\n"
               "    operands: x(in,general/seg) y(in,general) m(in,general/dims) t5(out,row) t6(out,general)\n")

    def test_vector_runs_are_not_element_reads(self):
        # general/seg reads vectors along its runs; general and general/dims read elements.
        self.assertEqual(variants.element_reads(self.EXPLAIN), [("solder_red_abs_0", "inner-reduction", ["y", "m", "t6"])])


if __name__ == "__main__":
    unittest.main()
