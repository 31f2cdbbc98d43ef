"""Message Lens in the browser: ``streamlit run app_streamlit.py`` (or ``make app``).

The pages live in ``app_pages/``; each is a few lines over ``toolkit.Workspace``.
Settings come from the environment (``MLENS_DATA_DIR``, ``MLENS_WEIGHTS_FILE`` …).
"""

import streamlit as st

st.set_page_config(page_title="Message Lens", page_icon="🔎", layout="wide")

pages = [
    st.Page("app_pages/sources.py", title="Sources", icon="📥", default=True),
    st.Page("app_pages/search.py", title="Search", icon="🔎"),
    st.Page("app_pages/summaries.py", title="Summaries", icon="📝"),
    st.Page("app_pages/evaluation.py", title="Evaluation", icon="📊"),
]
st.navigation(pages).run()
