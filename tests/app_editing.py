"""Editable tables in AppTest (st.data_editor): find one by its YAML path, and edit it as the browser does."""

from __future__ import annotations

import json

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import ElementTree


def editor(at: AppTest, path: str):
    """The editable table of a YAML path (key ``g<generation>|<path>``)."""
    (found,) = [e for e in at.data_editor if e.key and e.key.split("|", 1)[-1] == path]
    return found


def edit_table(at: AppTest, path: str, delta: dict) -> None:
    """Edit the table of a YAML path as the browser does: its edit state (edited, added and deleted rows) sent with the
    next run, so its callback runs. AppTest cannot type into a table's cells (its ``set_value`` refuses), and state
    assigned to a table before a run is not a change from the browser, so no callback would run."""
    table = editor(at, path)
    states = ElementTree.get_widget_states
    state = {"edited_rows": {}, "added_rows": [], "deleted_rows": []} | delta

    def with_edit(tree: ElementTree):
        found = states(tree)
        found.widgets.append(WidgetState(id=table.proto.id, string_value=json.dumps(state)))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ElementTree, "get_widget_states", with_edit)
        at.run()
    assert not at.exception, [e.value for e in at.exception]


def record_downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, str | bytes]:
    """Every file a download button offers from now on: its file name -> its data (text where it is UTF-8, else the
    bytes), as the browser would save it. AppTest does not download; the button's data goes through Streamlit's
    media file manager, which this records."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    downloads: dict[str, str | bytes] = {}
    add = MediaFileManager.add

    def recording(self, data, mimetype, *args, **kwargs):
        if kwargs.get("file_name"):
            try:
                downloads[kwargs["file_name"]] = data.decode("utf-8") if isinstance(data, bytes) else data
            except UnicodeDecodeError:
                downloads[kwargs["file_name"]] = data
        return add(self, data, mimetype, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add", recording)
    return downloads
