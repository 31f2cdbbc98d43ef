"""The Streamlit app's pages (one task each) and their shared plumbing (``common``)."""
