#include "gantt_view.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <fmt/format.h>

#include "lower/task_types.h"

namespace trainsim::gui {

GanttView::GanttView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumHeight(120);
}

QSize GanttView::sizeHint() const {
  return {900, std::max(200, layout_.total_height + 40)};
}

void GanttView::set_data(std::shared_ptr<const GanttData> d) {
  data_ = std::move(d);
  selected_mb_ = -1;
  relayout();
  mapper_.set_width(plot_rect().width());
  const TimeNs ms = data_ ? drawn_span(*data_) : 0;
  if (ms != fitted_makespan_) {
    fitted_makespan_ = ms;
    fit();
  }
  updateGeometry();
  update();
}

void GanttView::set_fit_span(TimeNs span) {
  fit_span_ = span;
  if (auto_fit_) fit();
}

void GanttView::set_mapper(const TimeMapper& m) {
  auto_fit_ = false;
  mapper_ = m;
  mapper_.set_width(plot_rect().width());
  update();
}

void GanttView::select_microbatch(int mb) {
  if (mb == selected_mb_) return;
  selected_mb_ = mb;
  emit microbatch_selected(mb);
  update();
}

void GanttView::set_show_peers(bool on) {
  show_peers_ = on;
  relayout();
}

void GanttView::set_show_streams(bool on) {
  show_streams_ = on;
  relayout();
}

void GanttView::set_fill_height(bool on) {
  fill_height_ = on;
  relayout();
}

void GanttView::relayout() {
  const std::vector<int> visible =
      data_ ? visible_lanes(*data_, show_peers_, show_streams_) : std::vector<int>{};
  layout_ = data_ ? layout_lanes(*data_, visible, style_) : GanttLayout{};
  // Few rows: taller lanes (up to 2.5 × a compute lane, 2 × a stream lane) use the pane instead
  // of a strip above empty space. Gaps stay, so the lanes never outgrow the pane.
  const int room = plot_rect().height();
  if (data_ && fill_height_ && layout_.total_height > 0 && layout_.total_height < room) {
    const double f = std::min(2.5, static_cast<double>(room) / layout_.total_height);
    GanttStyle tall = style_;
    tall.lane_height = static_cast<int>(style_.lane_height * f);
    tall.stream_lane_height = static_cast<int>(style_.stream_lane_height * std::min(2.0, f));
    layout_ = layout_lanes(*data_, visible, tall);
  }
  scroll_y_ = std::clamp(scroll_y_, 0, std::max(0, layout_.total_height - plot_rect().height()));
  updateGeometry();
  update();
}

QRect GanttView::plot_rect() const {
  const int top = style_.axis_height + 3;
  return {style_.label_width, top, std::max(1, width() - style_.label_width),
          std::max(1, height() - top)};
}

void GanttView::changed() {
  auto_fit_ = false;
  update();
  emit view_changed();
}

void GanttView::fit() {
  if (!data_) return;
  mapper_.fit(fit_span_ > 0 ? fit_span_ : drawn_span(*data_), plot_rect().width());
  update();
  emit view_changed();
  auto_fit_ = true;
}

void GanttView::zoom_in() {
  mapper_.zoom(1.5, plot_rect().width() / 2.0);
  changed();
}

void GanttView::zoom_out() {
  mapper_.zoom(1 / 1.5, plot_rect().width() / 2.0);
  changed();
}

void GanttView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (!data_) {
    p.setPen(Qt::gray);
    p.drawText(rect(), Qt::AlignCenter, tr("Open a scenario (File ▸ Open, or drop a .yaml here)"));
    return;
  }
  const QRect plot = plot_rect();
  const QRect axis(plot.left(), 0, plot.width(), style_.axis_height);
  paint_axis(p, axis, mapper_, height());
  p.save();
  p.setClipRect(QRect(0, plot.top(), width(), plot.height()));
  const QRect lanes(plot.left(), plot.top() - scroll_y_, plot.width(), plot.height() + scroll_y_);
  paint_labels(p, QRect(0, lanes.top(), style_.label_width, lanes.height()), *data_, layout_);
  paint_lanes(p, lanes, *data_, layout_, mapper_, selected_mb_);
  p.restore();
  if (ranging_) {
    const int a = std::max(plot.left(), std::min(press_.x(), last_.x()));
    const int b = std::min(plot.right(), std::max(press_.x(), last_.x()));
    p.fillRect(QRect(a, plot.top(), b - a, plot.height()), QColor(0x30, 0x60, 0xd0, 50));
  }
}

void GanttView::resizeEvent(QResizeEvent*) {
  relayout();
  if (auto_fit_) {
    fit();
  } else {
    mapper_.set_width(plot_rect().width());
    emit view_changed();
  }
}

void GanttView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ControlModifier) {
    mapper_.zoom(std::pow(1.25, steps), e->position().x() - plot_rect().left());
    changed();
  } else if (e->modifiers() & Qt::ShiftModifier) {
    mapper_.pan(-steps * plot_rect().width() / 10.0);
    changed();
  } else {
    scroll_y_ = std::clamp(scroll_y_ - static_cast<int>(steps * 3 * style_.lane_height), 0,
                           std::max(0, layout_.total_height - plot_rect().height()));
    update();
  }
  e->accept();
}

void GanttView::mousePressEvent(QMouseEvent* e) {
  press_ = last_ = e->position().toPoint();
  moved_ = false;
  ranging_ = e->button() == Qt::RightButton ||
             (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier));
  dragging_ = !ranging_ && e->button() == Qt::LeftButton;
}

void GanttView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  if ((pos - press_).manhattanLength() > 3) moved_ = true;
  if (dragging_) {
    mapper_.pan(last_.x() - pos.x());
    scroll_y_ = std::clamp(scroll_y_ + last_.y() - pos.y(), 0,
                           std::max(0, layout_.total_height - plot_rect().height()));
    changed();
  } else if (ranging_) {
    update();
  }
  last_ = pos;
}

void GanttView::mouseReleaseEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  if (ranging_ && moved_) {
    const double a = mapper_.t_of(std::min(press_.x(), pos.x()) - plot_rect().left());
    const double b = mapper_.t_of(std::max(press_.x(), pos.x()) - plot_rect().left());
    mapper_.show_range(a, b);
    ranging_ = false;
    changed();
    return;
  }
  ranging_ = dragging_ = false;
  if (!moved_ && e->button() == Qt::LeftButton) {
    const TaskId t = task_at(pos);
    select_microbatch(t == kNone ? -1 : data_->timeline->graph->tasks[t].microbatch);
  }
  update();
}

void GanttView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_in();
      break;
    case Qt::Key_Minus:
      zoom_out();
      break;
    case Qt::Key_0:
    case Qt::Key_F:
      fit();
      break;
    case Qt::Key_Left:
      mapper_.pan(-plot_rect().width() / 8.0);
      changed();
      break;
    case Qt::Key_Right:
      mapper_.pan(plot_rect().width() / 8.0);
      changed();
      break;
    case Qt::Key_Escape:
      select_microbatch(-1);
      break;
    default:
      QWidget::keyPressEvent(e);
  }
}

bool GanttView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const TaskId t = task_at(he->pos());
    if (t != kNone)
      QToolTip::showText(he->globalPos(), describe(t), this);
    else if (const TraceKernel* k = kernel_at(he->pos()))
      QToolTip::showText(he->globalPos(), describe(*k), this);
    else
      QToolTip::hideText();
    return true;
  }
  if (e->type() == QEvent::NativeGesture) {
    auto* ge = static_cast<QNativeGestureEvent*>(e);
    if (ge->gestureType() == Qt::ZoomNativeGesture) {
      mapper_.zoom(1 + ge->value(), ge->position().x() - plot_rect().left());
      changed();
      return true;
    }
  }
  return QWidget::event(e);
}

std::pair<const Lane*, const Box*> GanttView::box_under(QPoint pos) const {
  if (!data_) return {};
  const QRect plot = plot_rect();
  if (!plot.contains(pos)) return {};
  const int i = layout_.lane_at(pos.y() - plot.top() + scroll_y_);
  if (i < 0) return {};
  const Lane& lane =
      data_->lanes[static_cast<std::size_t>(layout_.lanes[static_cast<std::size_t>(i)])];
  // Within half a pixel either side, so sub-pixel boxes can still be hovered.
  const double x = pos.x() - plot.left();
  for (double dx : {0.0, -0.5, 0.5})
    if (const Box* b = box_at(lane, mapper_.t_of(x + dx))) return {&lane, b};
  return {&lane, nullptr};
}

TaskId GanttView::task_at(QPoint pos) const {
  const auto [lane, box] = box_under(pos);
  return box && !lane->measured ? box->task : kNone;
}

const TraceKernel* GanttView::kernel_at(QPoint pos) const {
  const auto [lane, box] = box_under(pos);
  if (!box || !lane->measured) return nullptr;
  return &data_->measured->kernels[static_cast<std::size_t>(box->task)];
}

QString GanttView::describe(const TraceKernel& k) const {
  const TorchTrace& t = *data_->measured;
  const TraceStep& st = t.steps[static_cast<std::size_t>(data_->measured_step)];
  std::string s = fmt::format(
      "<b>{}</b> (measured)<br>{}", kernel_category_name(k.kind.category),
      QString::fromStdString(kernel_family(t.names[k.name])).toHtmlEscaped().toStdString());
  if (!k.kind.collective.empty()) s += fmt::format("<br>{}", k.kind.collective);
  if (k.collective >= 0)
    s += fmt::format(" · {:.3g} MB",
                     t.collectives[static_cast<std::size_t>(k.collective)].bytes / 1e6);
  if (k.shape >= 0) {
    const TraceGemmShape& g = t.gemm_shapes[static_cast<std::size_t>(k.shape)];
    s += fmt::format("<br>m {} · n {} · k {}{}", g.m, g.n, g.k,
                     g.dtype.empty() ? "" : " · " + g.dtype);
  }
  s += fmt::format("<br>rank {} · stream {} · {}<br>start {}<br>duration {}", t.rank, k.stream,
                   st.name, format_duration(static_cast<double>(k.start - st.gpu_begin)),
                   format_duration(static_cast<double>(k.dur)));
  return QString::fromStdString(s);
}

QString GanttView::describe(TaskId t) const {
  const Timeline& tl = *data_->timeline;
  const TaskGraph& g = *tl.graph;
  const Task& task = g.tasks[t];
  const Work& w = g.work(t);
  const SimRank& rk = tl.ranks.ranks[g.streams[task.stream].owner];
  std::string s = fmt::format("<b>{}</b>", task_type_name(static_cast<TaskType>(w.type)));
  if (const std::string d = dp_detail_name(static_cast<DpDetail>(w.detail)); !d.empty())
    s += fmt::format(": {}", d);
  if (w.parts > 1) s += fmt::format(" (part {} of {})", w.part + 1, w.parts);
  s += fmt::format("<br>rank {} · pp {} tp {} dp {}", rk.global, rk.coord.pp, rk.coord.tp,
                   rk.coord.dp);
  if (task.microbatch >= 0) s += fmt::format("<br>micro-batch {}", task.microbatch);
  if (w.stage >= 0) s += fmt::format("<br>stage {}", w.stage);
  if (w.stage >= 0 && tl.schedule.chains > 1)  // DualPipe: which copy of which model stage
    s += fmt::format(" (model stage {}, pipeline {} of {})", tl.schedule.model_stage(w.stage),
                     tl.schedule.chain_of_stage(w.stage) + 1, tl.schedule.chains);
  if (w.chunk >= 0) s += fmt::format(" · chunk {}", w.chunk);
  if (static_cast<TaskType>(w.type) == TaskType::ForwardBackward) {  // DualPipe's pair
    const auto pairs = tl.schedule.overlapped_backwards();
    if (const auto it = pairs.find({w.stage, task.microbatch}); it != pairs.end())
      s += fmt::format("<br>with the backward of micro-batch {}, stage {} · chunk {}",
                       it->second.microbatch, it->second.stage,
                       tl.schedule.chunk_of(it->second.stage));
  }
  s += fmt::format("<br>start {}<br>duration {}", format_duration(static_cast<double>(tl.start[t])),
                   format_duration(static_cast<double>(tl.end[t] - tl.start[t])));
  if (w.flops > 0) s += fmt::format("<br>{:.3g} TFLOP", w.flops / 1e12);
  if (w.bytes > 0) s += fmt::format("<br>{:.3g} MB", w.bytes / 1e6);
  return QString::fromStdString(s);
}

}  // namespace trainsim::gui
