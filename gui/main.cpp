// trainsim-gui: the desktop front end. `trainsim-gui [SCENARIO]` opens a window;
// `--screenshot OUT.png` renders it offscreen (QT_QPA_PLATFORM=offscreen unless set) and exits.
// Exit codes as the CLI's: 0 ok, 2 bad input, 1 internal error.
#include <cstdio>
#include <iostream>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTabWidget>
#include <QTimer>

#include "core/error.h"
#include "main_window.h"
#include "schedules/registry.h"
#include "search_view.h"

#ifndef TRAINSIM_VERSION
#define TRAINSIM_VERSION "0.0.0"
#endif

namespace {

bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (QByteArray(argv[i]).startsWith(flag)) return true;
  return false;
}

std::vector<std::string> split(const QString& s) {
  std::vector<std::string> out;
  for (const QString& part : s.split(QLatin1Char(','), Qt::SkipEmptyParts))
    out.push_back(part.trimmed().toStdString());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Headless rendering must be chosen before the application object exists: --screenshot,
  // --help and --version draw no window. Anything else without a display would make Qt abort,
  // so say what to do instead.
  const bool no_window = has_flag(argc, argv, "--screenshot") || has_flag(argc, argv, "--help") ||
                         has_flag(argc, argv, "-h") || has_flag(argc, argv, "--version") ||
                         has_flag(argc, argv, "-v");
  const bool display =
      !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    if (no_window && (!display || has_flag(argc, argv, "--screenshot")))
      qputenv("QT_QPA_PLATFORM", "offscreen");
    else if (!display) {
      std::cerr << "trainsim-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset). On a "
                   "server, render with --screenshot OUT.png, or set QT_QPA_PLATFORM (e.g. "
                   "offscreen, vnc)\n";
      return 2;
    }
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("trainsim-gui"));
  QApplication::setApplicationVersion(QStringLiteral(TRAINSIM_VERSION));
  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral(
      "Draws trainsim's simulated training step: Gantt timeline per GPU, memory over time, "
      "schedule comparison."));
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument(
      QStringLiteral("scenario"),
      QStringLiteral("scenario YAML to open; more files are compared beside it in the Compare tab "
                     "(A/B, each under its own schedule, as trainsim compare A.yaml B.yaml)"),
      QStringLiteral("[SCENARIO [OTHER…]]"));
  const QCommandLineOption shot(
      QStringLiteral("screenshot"),
      QStringLiteral(
          "render the window offscreen to FILE (.png or .svg: the current view) and exit"),
      QStringLiteral("FILE"));
  const QCommandLineOption cmp(
      QStringLiteral("compare"),
      QStringLiteral("compare these schedules (comma-separated, or all) in the Compare tab"),
      QStringLiteral("NAMES"));
  const QCommandLineOption search(
      QStringLiteral("search"),
      QStringLiteral("search every parallel layout (as `trainsim search`) in the Search tab"));
  const QCommandLineOption set(
      QStringLiteral("set"),
      QStringLiteral("override a scenario key, as trainsim's --set (repeatable), e.g. "
                     "--set parallelism.pp=2"),
      QStringLiteral("KEY=VALUE"));
  const QCommandLineOption measured(
      QStringLiteral("measured"),
      QStringLiteral("draw a PyTorch profiler trace (Kineto JSON or JSON.gz) below the simulated "
                     "step, with measured vs simulated in the report (as trainsim diff)"),
      QStringLiteral("TRACE"));
  const QCommandLineOption measured_step(
      QStringLiteral("measured-step"),
      QStringLiteral("the ProfilerStep of --measured to draw, or a window of times from its first "
                     "kernel such as 1.2s..1.9s (default: as trainsim diff picks)"),
      QStringLiteral("N"));
  const QCommandLineOption size(QStringLiteral("size"),
                                QStringLiteral("window size, default 1500x900"),
                                QStringLiteral("WxH"), QStringLiteral("1500x900"));
  cli.addOptions({shot, cmp, search, set, measured, measured_step, size});
  cli.process(app);

  try {
    std::vector<std::string> schedules;
    if (cli.isSet(cmp)) {
      schedules = cli.value(cmp) == QLatin1String("all") ? trainsim::schedule_names()
                                                         : split(cli.value(cmp));
      if (schedules.empty()) throw trainsim::InputError("--compare: give schedule names, or all");
      for (const auto& n : schedules) trainsim::find_schedule(n);  // unknown: lists the valid ones
    }
    const QStringList wh = cli.value(size).split(QLatin1Char('x'));
    bool okw = false, okh = false;
    const int w = wh.size() == 2 ? wh[0].toInt(&okw) : 0,
              h = wh.size() == 2 ? wh[1].toInt(&okh) : 0;
    // At most 16384 a side: past about 32,767 pixels Qt's raster painter cannot draw at all
    // (a 16384² screenshot is already 1 GiB of pixels).
    constexpr int kMaxSide = 16384;
    if (!okw || !okh || w < 200 || h < 150 || w > kMaxSide || h > kMaxSide)
      throw trainsim::InputError(
          "--size: expected WxH with 200 ≤ W ≤ 16384 and 150 ≤ H ≤ 16384, e.g. 1500x900; got " +
          cli.value(size).toStdString());
    const QStringList args = cli.positionalArguments();
    if (cli.isSet(shot) && args.isEmpty())
      throw trainsim::InputError("--screenshot needs a scenario to draw");
    if (cli.isSet(shot) && !cli.value(shot).endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) &&
        !cli.value(shot).endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
      throw trainsim::InputError(
          "--screenshot: name a .png file (the window) or an .svg one (the current view); got " +
          cli.value(shot).toStdString());

    trainsim::gui::MainWindow win;
    win.resize(w, h);
    std::vector<std::string> sets;
    for (const QString& s : cli.values(set)) sets.push_back(s.toStdString());
    if (!sets.empty() && args.isEmpty())
      throw trainsim::InputError("--set needs a scenario to apply to");
    if (!args.isEmpty() && !win.open_scenario(args.front(), sets))
      throw trainsim::InputError(win.last_error().toStdString());
    if (cli.isSet(measured)) {
      if (args.isEmpty()) throw trainsim::InputError("--measured needs a scenario to compare with");
      win.wait_for_simulation();
      if (!win.load_measured(cli.value(measured), cli.value(measured_step)))
        throw trainsim::InputError(win.last_error().toStdString());
    } else if (cli.isSet(measured_step)) {
      throw trainsim::InputError("--measured-step needs --measured");
    }
    if (!schedules.empty()) win.compare(schedules);
    if (args.size() > 1) {
      std::vector<std::string> others;
      for (qsizetype i = 1; i < args.size(); ++i) {
        if (!QFileInfo(args[i]).isFile())
          throw trainsim::InputError(args[i].toStdString() + ": no such scenario file");
        others.push_back(args[i].toStdString());
      }
      win.compare_with(others);
    }
    if (cli.isSet(search)) {
      win.wait_for_simulation();  // the search starts from the scenario as simulated
      win.tabs()->setCurrentWidget(win.search_view());
      win.search_view()->run();
      if (cli.isSet(shot)) win.search_view()->wait();
    }
    if (!cli.isSet(shot)) {
      if (!cli.isSet(size)) win.restore_layout();  // as the user left it, unless --size says
      win.show();
      return app.exec();
    }
    win.show();
    QApplication::processEvents();  // the first layout pass
    win.wait_for_simulation();
    if (!win.last_error().isEmpty()) throw trainsim::InputError(win.last_error().toStdString());
    QApplication::processEvents();  // lay out what the result added
    const QString out = cli.value(shot);
    if (cli.isSet(size) && (win.width() > w || win.height() > h))
      std::cerr << "trainsim-gui: --size " << w << "x" << h << " is under the window's minimum: "
                << "drawn at " << win.width() << "x" << win.height() << "\n";
    const bool ok = out.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? win.export_view(out)
                                                                             : win.grab().save(out);
    if (!ok) throw trainsim::InputError("--screenshot: cannot write " + out.toStdString());
    std::cout << "screenshot written to " << out.toStdString() << "\n";
    return 0;
  } catch (const trainsim::InputError& e) {
    std::cerr << "trainsim-gui: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trainsim-gui: internal error: " << e.what() << "\n";
    return 1;
  }
}
