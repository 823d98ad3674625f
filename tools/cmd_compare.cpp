// `solder compare A.json B.json [--threshold PCT]`: per-case verdicts between two
// `solder bench` reports, judged against the noise each run measured. Exits 0 whatever the
// verdicts (a slowdown is information, not a failure; CI reads the counts from the summary
// line); a file that is not a report by the schema (bench/compare.h) is an error.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/compare.h"
#include "bench/record.h"
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare two `solder bench` JSON reports case by case");
  struct Opts {
    std::string a, b;
    double threshold_pct = 2.0;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("A", opts->a, "baseline report (JSON)")->required()->check(CLI::ExistingFile);
  cmd->add_option("B", opts->b, "new report (JSON)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--threshold", opts->threshold_pct,
                  "smallest change in percent that can count (the measured spread may raise it)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->callback([opts] {
    if (!std::isfinite(opts->threshold_pct)) throw Error("--threshold must be a finite number of percent");
    bench::BenchReport a = bench::load_report_checked(opts->a);
    bench::BenchReport b = bench::load_report_checked(opts->b);
    std::printf("A: %s (%s, %s)\nB: %s (%s, %s)\n\n", opts->a.c_str(), a.device.c_str(), a.date.c_str(),
                opts->b.c_str(), b.device.c_str(), b.date.c_str());
    if (!a.device.empty() && !b.device.empty() && a.device != b.device)
      std::printf("note: the reports come from different devices\n\n");
    bench::Comparison c = bench::compare_reports(a, b, opts->threshold_pct / 100.0);
    std::fputs(bench::format_comparison(c).c_str(), stdout);
  });
}

}  // namespace solder::cli
