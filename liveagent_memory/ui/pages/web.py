"""The "Web and agents" page: the local web bridge on and off, its address and token, the MCP
configuration for agent clients, the agents using MCP now, and the programs the bridge answered
lately (issue 16).

The agents using MCP are the `liveagent-memory mcp` processes running on this computer
(`agents_running`, store/presence.py): a stdio server talks to its client alone, so each keeps
a record the page reads while it is shown.

The bridge runs inside the app (ui/web_service.py); its port is a setting (`bridge_port` in
settings.json, saved when the bridge starts on a new one). HTTP clients do not stay connected,
so "connected clients" are the callers the bridge answered lately (web/callers.py), said so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDateTime, Qt, QTimer, QUrl
from PySide6.QtGui import QFontDatabase, QGuiApplication, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import web_config
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.settings import MAX_PORT
from liveagent_memory.ui.mcp_snippets import CLIENT_NAMES, CLIENTS, command_path, mcp_snippet
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.memory_row_actions import open_url
from liveagent_memory.ui.strings import error_detail, error_text
from liveagent_memory.ui.web_service import BridgeState
from liveagent_memory.web.callers import NO_AGENT

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

SNIPPET_LINES = 9  # the configuration box's height: most of a snippet, the rest scrolls
PORT_FIELD_PADDING = 48  # px beside the digits: the arrows, the stylesheet's padding and border
CALLER_ROWS = 5  # the callers table's height before it scrolls
COL_AGENT, COL_REQUESTS, COL_LAST, COL_PATH = range(4)
AGENT_ROWS = 4  # the running agents table's height before it scrolls
AGENT_CLIENT, AGENT_HOW, AGENT_PROJECT, AGENT_CALLS, AGENT_LAST = range(5)
# A transport is named as the MCP specification names it, in every language.
TRANSPORT_NAMES = {"stdio": "stdio", "http": "HTTP"}


class WebPage(DrawerPage):
    """Bridge switch and port, address and token with Copy, the MCP snippet, recent callers."""

    NAME = "web"
    ORDER = 60

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.service = context.web
        self.command = command_path()
        self._saved_port = web_config.BRIDGE_DEFAULT_PORT
        self._build_bridge_group()
        self._build_mcp_group()
        self._build_agents_group()
        self._build_callers_group()
        self.callers_timer = QTimer(self)
        self.callers_timer.setInterval(web_config.BRIDGE_CALLERS_REFRESH_MS)
        self.callers_timer.timeout.connect(self.show_callers)
        self.agents_timer = QTimer(self)  # runs while the page is shown
        self.agents_timer.setInterval(web_config.AGENTS_REFRESH_MS)
        self.agents_timer.timeout.connect(self._refresh_agents)
        self._sessions: list[dict[str, Any]] = []
        content = QWidget()
        column = QVBoxLayout(content)
        for group in (self.bridge_group, self.mcp_group, self.agents_group, self.callers_group):
            column.addWidget(group)
        column.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll_area)
        self.retranslate()

    # --- building ---------------------------------------------------------------------------
    def _build_bridge_group(self) -> None:
        self.bridge_group = QGroupBox()
        self.switch = QCheckBox()
        self.switch.setObjectName("bridge_switch")
        self.switch.toggled.connect(self._switched)
        self.port_label = QLabel()
        self.port = QSpinBox()
        self.port.setRange(1, MAX_PORT)  # the app names its port: an agent's config needs it
        self.port.setValue(web_config.BRIDGE_DEFAULT_PORT)
        digits = self.port.fontMetrics().horizontalAdvance(str(MAX_PORT))
        self.port.setMinimumWidth(digits + PORT_FIELD_PADDING)
        self.state_line = QLabel()
        self.state_line.setObjectName("bridge_state")
        self.state_line.setWordWrap(True)
        self.address_label, self.token_label = QLabel(), QLabel()
        self.address = QLineEdit()
        self.token = QLineEdit()
        for field in (self.address, self.token):
            field.setReadOnly(True)
        # Hidden until asked: a screen share or a screenshot must not show the token.
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.reveal = QPushButton()
        self.reveal.setCheckable(True)
        self.reveal.toggled.connect(self._reveal)
        self.copy_address, self.copy_token = QPushButton(), QPushButton()
        self.copy_address.clicked.connect(lambda: self._copy(self.address.text()))
        # The person's own page in the browser: the link holds this start's panel key.
        self.open_panel = QPushButton()
        self.open_panel.setObjectName("open_web_panel")
        self.open_panel.clicked.connect(self._open_panel)
        self.copy_token.clicked.connect(lambda: self._copy(self.token.text()))
        self.new_token = QPushButton()
        self.new_token.clicked.connect(lambda: self.client.bridge.spawn(self.renew_token()))
        self.token_note = QLabel()
        self.token_note.setWordWrap(True)
        self.help = QLabel()
        self.help.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.switch)
        top.addStretch(1)
        top.addWidget(self.port_label)
        top.addWidget(self.port)
        grid = QGridLayout()
        grid.addWidget(self.address_label, 0, 0)
        grid.addWidget(self.address, 0, 1)
        grid.addWidget(self.copy_address, 0, 2)
        grid.addWidget(self.open_panel, 0, 3, 1, 2)
        grid.addWidget(self.token_label, 1, 0)
        grid.addWidget(self.token, 1, 1)
        grid.addWidget(self.reveal, 1, 2)
        grid.addWidget(self.copy_token, 1, 3)
        grid.addWidget(self.new_token, 1, 4)
        grid.setColumnStretch(1, 1)
        box = QVBoxLayout(self.bridge_group)
        box.addLayout(top)
        box.addWidget(self.state_line)
        box.addLayout(grid)
        box.addWidget(self.token_note)
        box.addWidget(self.help)

    def _build_mcp_group(self) -> None:
        self.mcp_group = QGroupBox()
        self.client_choice = QComboBox()
        for client in CLIENTS:
            self.client_choice.addItem(CLIENT_NAMES[client], client)
        self.client_choice.currentIndexChanged.connect(self.show_snippet)
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.snippet = QPlainTextEdit()
        self.snippet.setObjectName("mcp_snippet")
        self.snippet.setReadOnly(True)
        self.snippet.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.snippet.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        lines = self.snippet.fontMetrics().lineSpacing() * SNIPPET_LINES
        self.snippet.setFixedHeight(lines)
        self.copy_snippet = QPushButton()
        self.copy_snippet.clicked.connect(lambda: self._copy(self.snippet.toPlainText()))
        top = QHBoxLayout()
        top.addWidget(self.client_choice)
        top.addStretch(1)
        top.addWidget(self.copy_snippet)
        box = QVBoxLayout(self.mcp_group)
        box.addLayout(top)
        box.addWidget(self.where)
        box.addWidget(self.snippet)

    def _build_agents_group(self) -> None:
        self.agents_group = QGroupBox()
        self.agents_help = QLabel()
        self.agents_help.setWordWrap(True)
        self.agents = QTableWidget(0, 5)
        self.agents.setObjectName("mcp_agents")
        self.agents.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.agents.verticalHeader().hide()
        header = self.agents.horizontalHeader()
        header.setSectionResizeMode(AGENT_PROJECT, QHeaderView.ResizeMode.Stretch)
        for column in (AGENT_CLIENT, AGENT_HOW, AGENT_CALLS, AGENT_LAST):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        row = self.agents.verticalHeader().defaultSectionSize()
        self.agents.setFixedHeight(row * (AGENT_ROWS + 1) + 2 * self.agents.frameWidth())
        box = QVBoxLayout(self.agents_group)
        box.addWidget(self.agents_help)
        box.addWidget(self.agents)

    def _build_callers_group(self) -> None:
        self.callers_group = QGroupBox()
        self.callers_help = QLabel()
        self.callers_help.setWordWrap(True)
        self.callers = QTableWidget(0, 4)
        self.callers.setObjectName("bridge_callers")
        self.callers.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.callers.verticalHeader().hide()
        header = self.callers.horizontalHeader()
        header.setSectionResizeMode(COL_AGENT, QHeaderView.ResizeMode.Stretch)
        for column in (COL_REQUESTS, COL_LAST, COL_PATH):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        row = self.callers.verticalHeader().defaultSectionSize()
        self.callers.setFixedHeight(row * (CALLER_ROWS + 1) + 2 * self.callers.frameWidth())
        box = QVBoxLayout(self.callers_group)
        box.addWidget(self.callers_help)
        box.addWidget(self.callers)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Web and agents")

    def retranslate(self) -> None:
        self.bridge_group.setTitle(self.tr("Local web bridge"))
        self.switch.setText(self.tr("Run the web bridge"))
        self.port_label.setText(self.tr("Port:"))
        self.address_label.setText(self.tr("Address:"))
        self.token_label.setText(self.tr("Token:"))
        for button in (self.copy_address, self.copy_token, self.copy_snippet):
            button.setText(self.tr("Copy"))
        self.new_token.setText(self.tr("New token"))
        self.open_panel.setText(self.tr("Open web panel"))
        self.open_panel.setToolTip(
            self.tr("Review and organize your memories in the browser (this computer only).")
        )
        self.reveal.setText(self.tr("Show"))
        self.new_token.setToolTip(self.tr("Make a new token; the old one stops working at once."))
        self.help.setText(
            self.tr(
                "Agents and tools on this computer call the bridge over HTTP with the header "
                "Authorization: Bearer <token>. It listens on this computer only (127.0.0.1)."
            )
        )
        self.mcp_group.setTitle(self.tr("MCP configuration"))
        self.agents_group.setTitle(self.tr("Agents using MCP now"))
        self.agents.setHorizontalHeaderLabels(
            [
                self.tr("Client"),
                self.tr("How"),
                self.tr("Project"),
                self.tr("Calls"),
                self.tr("Last call"),
            ]
        )
        self.show_agents(self._sessions)
        self.callers_group.setTitle(self.tr("Connected clients"))
        self.callers_help.setText(
            self.tr(
                "HTTP clients do not stay connected: these are the programs the bridge "
                "answered lately, by the name they send (User-Agent)."
            )
        )
        self.callers.setHorizontalHeaderLabels(
            [self.tr("Program"), self.tr("Requests"), self.tr("Last request"), self.tr("Path")]
        )
        self.show_snippet()
        self.show_state()
        self.show_token()
        self.show_callers()

    def _where_text(self, client: str) -> str:
        where = {
            "claude_desktop": self.tr(
                "In claude_desktop_config.json (Settings → Developer → Edit Config): global "
                "memories, no project."
            ),
            "claude_code": self.tr("Run in the project's folder: its project memories too."),
            "cursor": self.tr(
                ".cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)."
            ),
            "vscode": self.tr(".vscode/mcp.json in the workspace."),
        }
        return where[client]

    # --- showing ----------------------------------------------------------------------------
    def show_snippet(self) -> None:
        client = str(self.client_choice.currentData() or CLIENTS[0])
        self.where.setText(self._where_text(client))
        self.snippet.setPlainText(
            mcp_snippet(client, home=self.context.app.home, command=self.command)
        )

    def show_state(self) -> None:
        """The bridge's state line and which controls apply in it."""
        state = self.service.state
        if state is BridgeState.ON:
            text = self.tr("On at %1").replace("%1", self.service.address)
        elif state is BridgeState.STARTING:
            text = self.tr("Starting…")
        elif state is BridgeState.FAILED and self.service.failure is not None:
            text = self.tr("Failed: %1").replace("%1", error_text(self.service.failure))
        else:
            text = self.tr("Off")
        self.state_line.setText(text)
        failure = self.service.failure
        self.state_line.setToolTip(error_detail(failure) if failure is not None else "")
        self.address.setText(self.service.address)
        self.copy_address.setEnabled(state is BridgeState.ON)
        self.open_panel.setEnabled(state is BridgeState.ON)
        self.port.setEnabled(state in (BridgeState.OFF, BridgeState.FAILED))
        self.switch.setEnabled(state is not BridgeState.STARTING)  # one start at a time
        self.switch.blockSignals(True)  # showing the state is not the person switching
        self.switch.setChecked(state in (BridgeState.ON, BridgeState.STARTING))
        self.switch.blockSignals(False)

    def show_token(self) -> None:
        token = self.service.token
        self.token.setText(token.value if token is not None else "")
        self.token.setCursorPosition(0)  # its start shows, not a cut-off end
        self.copy_token.setEnabled(token is not None)
        self.reveal.setEnabled(token is not None)
        if token is None and self.service.keyring_missing:
            note = self.tr(
                "No secure keyring on this system: a token is made when the bridge starts and "
                "lasts until the app closes."
            )
        elif token is None:
            note = self.tr(
                "No token yet: one is made, and kept in the system keyring, when the "
                "bridge first starts."
            )
        elif token.kept:
            note = self.tr("The token is kept in the system keyring; it stays the same.")
        else:
            note = self.tr(
                "No secure keyring on this system: this token lasts until the app closes "
                "and is not saved anywhere."
            )
        self.token_note.setText(note)

    def show_agents(self, sessions: list[dict[str, Any]]) -> None:
        """The MCP servers running on this computer (`agents_running` sessions)."""
        self._sessions = list(sessions)
        self.agents_help.setText(
            self.tr(
                "The MCP servers running on this computer, each started by an agent with the "
                "configuration above, and the client that uses it."
            )
            if sessions
            else self.tr(
                "No agent is using MCP now. An agent starts the server when it connects, "
                "with the configuration above."
            )
        )
        self.agents.setRowCount(len(sessions))
        for row, session in enumerate(sessions):
            client = " ".join(p for p in (session["client"], session["client_version"]) if p)
            last = session["last_call_at"]
            cells = (
                client or self.tr("(not connected yet)"),
                TRANSPORT_NAMES.get(session["transport"], session["transport"]),
                session["workdir"] or self.tr("(no project: global memories)"),
                str(session["calls"]),
                QDateTime.fromMSecsSinceEpoch(int(last)).toString("yyyy-MM-dd HH:mm:ss")
                if last is not None
                else "—",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{text} (pid {session['pid']})" if column == 0 else text)
                self.agents.setItem(row, column, item)

    async def load_agents(self) -> None:
        self.show_agents((await self.client.call("agents_running", {}))["sessions"])

    def _refresh_agents(self) -> None:
        if loop_is_running():
            self.client.bridge.preempt("web-agents", self.load_agents())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.agents_timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self.agents_timer.stop()
        super().hideEvent(event)

    def show_callers(self) -> None:
        callers = self.service.callers()
        self.callers.setRowCount(len(callers))
        for row, caller in enumerate(callers):
            when = QDateTime.fromMSecsSinceEpoch(caller.last_at_ms).toString("yyyy-MM-dd HH:mm:ss")
            agent = caller.user_agent if caller.user_agent != NO_AGENT else self.tr("(no name)")
            cells = (agent, str(caller.requests), when, caller.last_path)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.callers.setItem(row, column, item)

    # --- actions ----------------------------------------------------------------------------
    async def load(self) -> None:
        """The saved port and the token (read from the keyring once)."""
        settings = await self.client.call("settings_get", {})
        port = settings.get("settings", {}).get("bridge_port", web_config.BRIDGE_DEFAULT_PORT)
        if isinstance(port, int) and port > 0:
            self._saved_port = port
            if self.service.state is BridgeState.OFF:
                self.port.setValue(port)
        await self.service.read_token()
        self.show_token()
        self.show_callers()
        await self.load_agents()

    def _switched(self, on: bool) -> None:
        self.client.bridge.spawn(self.turn_on() if on else self.turn_off())

    async def turn_on(self) -> None:
        """Start the bridge on the chosen port and remember the port; a failure is shown on
        the state line (and the window's status bar)."""
        port = self.port.value()
        self.service.state = BridgeState.STARTING
        self.show_state()
        try:
            await self.service.start(port)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        finally:  # whatever happened, the switch and the line say what is true now
            self.show_state()
            self.show_token()
        self.callers_timer.start()
        if port != self._saved_port:  # remembered for the next start (settings.json)
            await self.client.call("settings_save_memory", {"settings": {"bridge_port": port}})
            self._saved_port = port

    async def turn_off(self) -> None:
        self.callers_timer.stop()
        await self.service.stop()
        self.show_state()
        self.show_callers()

    async def renew_token(self) -> None:
        await self.service.renew_token()
        self.show_token()

    def _reveal(self, shown: bool) -> None:
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        self.token.setEchoMode(mode)

    def _open_panel(self) -> None:
        if self.service.panel_url:
            open_url(QUrl(self.service.panel_url))

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
