#include "svg_png.h"

#include <cstdio>
#include <optional>

#include <QBuffer>
#include <QByteArray>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include "core/error.h"

namespace trainsim {

std::string svg_to_png(const std::string& svg, double scale) {
  // Fonts need a QGuiApplication; a command-line tool has none (one for this call), and no
  // display either.
  static int argc = 1;
  static char name[] = "trainsim";
  static char* argv[] = {name, nullptr};
  std::optional<QGuiApplication> app;
  QtMessageHandler previous = nullptr;
  if (!QGuiApplication::instance()) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt's remarks on the environment (no XDG_RUNTIME_DIR, …) are not the user's business here.
    previous =
        qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& m) {
          if (type == QtCriticalMsg || type == QtFatalMsg)
            std::fprintf(stderr, "%s\n", qPrintable(m));
        });
    app.emplace(argc, argv);
  }
  QSvgRenderer renderer(QByteArray(svg.data(), static_cast<qsizetype>(svg.size())));
  TRAINSIM_CHECK(renderer.isValid(), "svg_to_png: the SVG we wrote does not parse");
  const QSize size = renderer.defaultSize() * scale;
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    renderer.render(&painter);
  }
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  const bool ok = image.save(&buffer, "PNG");
  TRAINSIM_CHECK(ok, "svg_to_png: Qt could not encode the PNG");
  if (app) qInstallMessageHandler(previous);
  return std::string(png.constData(), static_cast<std::size_t>(png.size()));
}

}  // namespace trainsim
