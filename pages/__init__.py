"""One module per system: ``render()`` wires widgets to ``core.<key>`` and draws plotly figures."""
