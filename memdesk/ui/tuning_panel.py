"""Tuning panel: one slider per ``settings.FIELDS`` entry (ranges from the field bounds),
decay and MMR toggles, the ranking profile, reset, and "Apply to OpenClaw…"."""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.search import profiles
from memdesk.core.search import settings as settings_mod
from memdesk.qt.translations import QT_TRANSLATE_NOOP

# objectNames tests and automation rely on, keyed by settings field (``Field.slider``).
SLIDER_NAMES = {f.name: f.slider for f in settings_mod.FIELDS.values() if f.slider}

LOG_FIELDS = frozenset({"half_life_days"})  # spans three decades: a linear slider is unusable
LOG_STEPS = 1000


def slider_steps(field: settings_mod.Field) -> int:
    if field.name in LOG_FIELDS:
        return LOG_STEPS
    return round((field.maximum - field.minimum) / field.step)


def to_slider(field: settings_mod.Field, value: float) -> int:
    if field.name in LOG_FIELDS:
        low, high = math.log(field.minimum), math.log(field.maximum)
        clamped = min(field.maximum, max(field.minimum, float(value)))
        return round((math.log(clamped) - low) / (high - low) * LOG_STEPS)
    return round((float(value) - field.minimum) / field.step)


def from_slider(field: settings_mod.Field, position: int) -> float | int:
    if field.name in LOG_FIELDS:
        low, high = math.log(field.minimum), math.log(field.maximum)
        value = math.exp(low + (high - low) * position / LOG_STEPS)
        return round(value) if field.integer else value
    value = field.minimum + position * field.step
    if field.integer:
        return round(value)
    # Round away binary noise (0.1 + 0.2) so saved settings and exports read cleanly.
    decimals = max(0, -math.floor(math.log10(field.step)))
    return round(value, decimals)


# The settings' labels and descriptions live in the Qt-free core; these markers let
# lupdate collect them, and _field_text shows them in the UI language.
_FIELD_TEXTS = (
    QT_TRANSLATE_NOOP("SearchSettings", "Vector weight"),
    QT_TRANSLATE_NOOP("SearchSettings", "Weight of the cosine similarity of the query and chunk embeddings."),
    QT_TRANSLATE_NOOP("SearchSettings", "Text weight"),
    QT_TRANSLATE_NOOP("SearchSettings", "Weight of the keyword (BM25) score."),
    QT_TRANSLATE_NOOP("SearchSettings", "Min score"),
    QT_TRANSLATE_NOOP("SearchSettings", "Hits whose final score is below this are dropped."),
    QT_TRANSLATE_NOOP("SearchSettings", "Max results"),
    QT_TRANSLATE_NOOP("SearchSettings", "How many hits to return."),
    QT_TRANSLATE_NOOP("SearchSettings", "Candidate multiplier"),
    QT_TRANSLATE_NOOP("SearchSettings", "Each leg fetches max_results x this many candidates (at most 200)."),
    QT_TRANSLATE_NOOP("SearchSettings", "Half-life (days)"),
    QT_TRANSLATE_NOOP(
        "SearchSettings",
        "Age at which a dated note's score is halved by temporal decay, and its recency bonus halved by recency.",
    ),
    QT_TRANSLATE_NOOP("SearchSettings", "Recency weight"),
    QT_TRANSLATE_NOOP(
        "SearchSettings",
        "Most a note can gain for being recent when the query asks for the current state (memdesk profile; "
        "an older note that matches better by more than this keeps its place).",
    ),
    QT_TRANSLATE_NOOP("SearchSettings", "MMR lambda"),
    QT_TRANSLATE_NOOP(
        "SearchSettings", "1 = pure relevance, 0 = pure diversity, in maximal marginal relevance."
    ),
)


def _field_text(text: str) -> str:
    return QCoreApplication.translate("SearchSettings", text)


def fmt_value(field: settings_mod.Field, value: float) -> str:
    return str(int(value)) if field.integer else f"{value:.2f}"


class TuningPanel(QWidget):
    """Edits a ``SearchSettings``; every change is emitted at once (re-ranking is cheap).

    Each profile keeps its own tuned values: switching profile puts the current
    values aside and brings back the other profile's (its defaults the first time);
    Reset returns the current profile to its defaults. The half-life slider is
    logarithmic, with a spin box for exact days.

    Signals:
        settings_changed(object): the new ``SearchSettings``.
        apply_requested(object): "Apply to OpenClaw…" with the current ``SearchSettings``.
    """

    settings_changed = Signal(object)
    apply_requested = Signal(object)

    def __init__(
        self, settings: settings_mod.SearchSettings | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tuningPanel")
        self._settings = settings or settings_mod.SearchSettings()
        self._per_profile: dict[str, settings_mod.SearchSettings] = {self._settings.profile: self._settings}
        self._updating = False
        self.sliders: dict[str, QSlider] = {}
        self._labels: dict[str, QLabel] = {}
        self.spins: dict[str, QSpinBox] = {}
        self._values: dict[str, QLabel] = {}

        self.profile_combo = QComboBox()
        self.profile_combo.setObjectName("profileCombo")
        # Sized by a short name, not its longest entry ("openclaw-2026.9 (= openclaw)"),
        # which would widen the whole pane and leave the results' snippets too little room.
        self.profile_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.profile_combo.setMinimumContentsLength(14)
        for profile in settings_mod.PROFILES:
            alias = settings_mod.PROFILE_ALIASES.get(profile)
            self.profile_combo.addItem(f"{profile} (= {alias})" if alias else profile, profile)
        self.profile_combo.setToolTip(
            self.tr(
                "memdesk: our ranking · openclaw-2026.4 / openclaw-2026.9: what that OpenClaw "
                "release's memory search returns (openclaw = the newest)"
            )
        )
        self.decay_check = QCheckBox(self.tr("Temporal decay"))
        self.decay_check.setObjectName("decayCheck")
        self.recency_check = QCheckBox(self.tr("Recency for current-state questions"))
        self.recency_check.setObjectName("recencyCheck")
        self.recency_check.setToolTip(
            self.tr(
                "memdesk profile: when a query asks how things are now, a recent note gains at most "
                "the recency weight, so the newer of two similar notes wins and a better old one keeps its place"
            )
        )
        self.mmr_check = QCheckBox(self.tr("MMR (diversity)"))
        self.mmr_check.setObjectName("mmrCheck")
        self._decay_tip = self.decay_check.toolTip()
        self._mmr_tip = self.mmr_check.toolTip()

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        grid.addWidget(QLabel(self.tr("Profile")), 0, 0)
        grid.addWidget(self.profile_combo, 0, 1, 1, 2)
        row = 1
        for name, object_name in SLIDER_NAMES.items():
            field = settings_mod.FIELDS[name]
            if name == "recency_weight":
                grid.addWidget(self.decay_check, row, 0, 1, 3)
                row += 1
                grid.addWidget(self.recency_check, row, 0, 1, 3)
                row += 1
            if name == "mmr_lambda":
                grid.addWidget(self.mmr_check, row, 0, 1, 3)
                row += 1
            label = QLabel(_field_text(field.label))
            label.setToolTip(_field_text(field.description))
            self._labels[name] = label
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setObjectName(object_name)
            slider.setRange(0, slider_steps(field))
            slider.setPageStep(max(1, slider_steps(field) // 10))
            slider.setToolTip(_field_text(field.description))
            value = QLabel()
            value.setObjectName(f"{object_name}Value")
            # As wide as the field's widest value, so no value is cut ("0.7" for 0.75).
            widest = max(
                value.fontMetrics().horizontalAdvance(fmt_value(field, v))
                for v in (field.minimum, field.maximum, field.maximum - field.step)
            )
            value.setMinimumWidth(widest + 4)
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(label, row, 0)
            grid.addWidget(slider, row, 1)
            if name in LOG_FIELDS:
                spin = QSpinBox()
                spin.setObjectName(f"{object_name}Spin")
                spin.setRange(int(field.minimum), int(field.maximum))
                spin.setToolTip(_field_text(field.description))
                spin.setKeyboardTracking(False)
                spin.valueChanged.connect(lambda v, n=name: self._on_spin_changed(n, v))
                self.spins[name] = spin
                grid.addWidget(spin, row, 2)
                value.setVisible(False)
            else:
                grid.addWidget(value, row, 2)
            self.sliders[name] = slider
            self._values[name] = value
            slider.valueChanged.connect(self._on_slider_value_changed)
            row += 1
        grid.setColumnStretch(1, 1)

        self.reset_button = QPushButton(self.tr("Reset"))
        self.reset_button.setToolTip(self.tr("Reset this profile to its defaults"))
        self.reset_button.setObjectName("resetButton")
        self.apply_button = QPushButton(self.tr("Apply to OpenClaw…"))
        self.apply_button.setObjectName("applyOpenClawButton")
        self.apply_button.setToolTip(
            self.tr("Write these settings into your agent's openclaw.json, showing the diff first")
        )
        self.status = QLabel("")
        self.status.setObjectName("tuningStatus")
        buttons = QHBoxLayout()
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.apply_button, 1)

        heading = self.tr("Ranking")
        title = QLabel(f"<b>{heading}</b>")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

        self.profile_combo.currentIndexChanged.connect(self._on_profile_combo_changed)
        self.decay_check.toggled.connect(self._on_check_toggled)
        self.recency_check.toggled.connect(self._on_check_toggled)
        self.mmr_check.toggled.connect(self._on_check_toggled)
        self.reset_button.clicked.connect(self._on_reset_button_clicked)
        self.apply_button.clicked.connect(self._on_apply_button_clicked)
        self._show(self._settings)

    @property
    def settings(self) -> settings_mod.SearchSettings:
        return self._settings

    def profile_settings(self, profile: str) -> settings_mod.SearchSettings:
        """The values ``profile`` would come back with (its defaults if never tuned)."""
        profile = settings_mod.canonical_profile(profile)  # "openclaw" is the newest OpenClaw profile
        return self._per_profile.get(profile) or settings_mod.SearchSettings.defaults(profile)

    def remember_profile(self, settings: settings_mod.SearchSettings) -> None:
        """Keep ``settings`` as the tuned values of its profile (e.g. loaded from disk)."""
        self._per_profile[settings.profile] = settings

    def load_profiles(
        self, profiles: list[settings_mod.SearchSettings], current: settings_mod.SearchSettings
    ) -> None:
        """Forget every profile's values for ``profiles`` (another workspace's) and show
        ``current``, without emitting: nothing changed, another workspace was opened."""
        self._per_profile = {s.profile: s for s in profiles}
        self.set_settings(current, emit=False)

    def show_tuned(self, queries: int | None, *, problem: str | None = None) -> None:
        """Say where the shown values come from: auto-tune on ``queries`` labelled queries
        of this workspace (None: set by hand or defaults); ``problem``: its file is unreadable."""
        if problem is not None:
            self.status.setText(self.tr("Defaults: {0}").format(problem))
        elif queries:
            self.status.setText(self.tr("Tuned on {0} queries of this workspace").format(queries))
        else:
            self.status.setText("")
        self.status.setToolTip(self.tr("Saved in this workspace's .memdesk/tuned.json"))

    def set_settings(self, settings: settings_mod.SearchSettings, *, emit: bool = True) -> None:
        self._settings = settings
        self._per_profile[settings.profile] = settings
        self._show(settings)
        if emit:
            self.settings_changed.emit(settings)

    def _show(self, settings: settings_mod.SearchSettings) -> None:
        self._updating = True
        try:
            self.profile_combo.setCurrentIndex(max(0, self.profile_combo.findData(settings.profile)))
            for name, slider in self.sliders.items():
                field = settings_mod.FIELDS[name]
                value = getattr(settings, name)
                slider.setValue(to_slider(field, value))
                self._values[name].setText(fmt_value(field, value))
                if name in self.spins:
                    self.spins[name].setValue(int(value))
            self.decay_check.setChecked(settings.decay)
            self.recency_check.setChecked(settings.recency)
            profile = profiles.get(settings.profile)
            # Recency exists in the memdesk profile only; the half-life shapes both.
            self.recency_check.setEnabled(profile.accepts("recency"))
            recency = settings.recency and profile.accepts("recency")
            self.sliders["recency_weight"].setEnabled(recency)
            self._labels["recency_weight"].setEnabled(recency)
            timed = settings.decay or recency
            self.mmr_check.setChecked(settings.mmr)
            self.sliders["half_life_days"].setEnabled(timed)
            self.spins["half_life_days"].setEnabled(timed)
            self.sliders["mmr_lambda"].setEnabled(settings.mmr)
            # 2026.9: decay and MMR are always on, the other values constants.
            always_on = self.tr("OpenClaw 2026.9 always applies this; its config cannot turn it off")
            for check, switch, own_tip in (
                (self.decay_check, "decay", self._decay_tip),
                (self.mmr_check, "mmr", self._mmr_tip),
            ):
                check.setEnabled(switch not in profile.always_on)
                check.setToolTip(always_on if switch in profile.always_on else own_tip)
            for name in profiles.fixed_fields():
                description = _field_text(settings_mod.FIELDS[name].description)
                fixed = name in profile.fixed
                tip = (
                    self.tr(
                        "OpenClaw 2026.9 fixes this at {0}: its config has no key for it, so the "
                        "openclaw-2026.9 profile cannot take another value"
                    ).format(f"{profile.fixed[name]:g}")
                    if fixed
                    else description
                )
                widgets: list[QWidget] = [self.sliders[name], self._labels[name]]
                if name in self.spins:
                    widgets.append(self.spins[name])
                for widget in widgets:
                    widget.setToolTip(tip)
                    if fixed:
                        widget.setEnabled(False)
                    elif widget is self._labels[name]:
                        widget.setEnabled(True)
                if not fixed and name in ("vector_weight", "text_weight", "candidate_multiplier"):
                    self.sliders[name].setEnabled(True)
        finally:
            self._updating = False

    def _read(self) -> settings_mod.SearchSettings:
        values: dict[str, object] = {
            name: from_slider(settings_mod.FIELDS[name], slider.value())
            for name, slider in self.sliders.items()
        }
        for name in self.spins:
            # The log slider cannot land on every day: a value it only rounds to stays.
            if (
                to_slider(settings_mod.FIELDS[name], getattr(self._settings, name))
                == self.sliders[name].value()
            ):
                values[name] = getattr(self._settings, name)
        return self._settings.replace(
            decay=self.decay_check.isChecked(),
            recency=self.recency_check.isChecked(),
            mmr=self.mmr_check.isChecked(),
            **values,
        )

    def _changed(self) -> None:
        if self._updating:
            return
        self.set_settings(self._read())

    @Slot(int)
    def _on_slider_value_changed(self, _value: int) -> None:
        self._changed()

    def _on_spin_changed(self, name: str, value: int) -> None:
        if not self._updating:
            self.set_settings(self._read().replace(**{name: value}))

    @Slot(bool)
    def _on_check_toggled(self, _on: bool) -> None:
        self._changed()

    @Slot(int)
    def _on_profile_combo_changed(self, _index: int) -> None:
        if self._updating:
            return
        # Each profile keeps its own values; an untuned one starts at its defaults
        # (OpenClaw's are the parity point).
        self.set_settings(self.profile_settings(self.profile_combo.currentData()))

    @Slot()
    def _on_reset_button_clicked(self) -> None:
        self.set_settings(settings_mod.SearchSettings.defaults(self._settings.profile))

    @Slot()
    def _on_apply_button_clicked(self) -> None:
        self.apply_requested.emit(self._settings)
