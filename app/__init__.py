"""The Streamlit shell: entry point, catalog, home page and shared widgets (app/ui)."""
