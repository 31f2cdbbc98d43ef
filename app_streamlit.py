"""Message Lens in the browser: ``streamlit run app_streamlit.py`` (or ``make app``).

The pages live in ``app_pages/``; each is a few lines over ``toolkit.Workspace``.
Settings come from the environment (``MLENS_DATA_DIR``, ``MLENS_WEIGHTS_FILE`` …).
"""

import streamlit as st

from app_pages.common import shown_errors

st.set_page_config(page_title="Message Lens", page_icon=":material/manage_search:", layout="wide")

pages = [
    st.Page("app_pages/sources.py", title="Sources", icon=":material/database:", default=True),
    st.Page("app_pages/search.py", title="Search", icon=":material/search:"),
    st.Page("app_pages/summaries.py", title="Summaries", icon=":material/summarize:"),
    st.Page("app_pages/schedules.py", title="Schedules", icon=":material/schedule_send:"),
    st.Page("app_pages/evaluation.py", title="Evaluation", icon=":material/analytics:"),
]
# Errors a page does not show in place (bad settings, say) still show as one message.
with shown_errors():
    st.navigation(pages).run()
