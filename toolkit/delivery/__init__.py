"""Digests delivered where people read: schedules, destinations, and a runner that
writes and sends each period's digest once (issue 44; DESIGN.md §7 "Delivery";
docs/delivery.md).

- ``periods``: when a rule is due and which period a digest covers (pure);
- ``model``: a schedule, its rule and its destinations (Telegram, webhook, e-mail, feed);
- ``digest``: the document an adapter delivers, and the adapters' one interface;
- the adapters ``telegram``, ``webhook``, ``mail`` and ``feed`` (``adapters`` picks one
  by kind), and ``render`` (a digest as text, HTML and Telegram messages);
- ``run`` and ``runner``: leases in the store, one run carried from digest to delivery,
  passes until stopped; ``status`` and ``out``: what each schedule's last run came to,
  as the faces answer it.

The Workspace holds it for the faces (``toolkit.workspace.delivery``); the runner writes
each digest through the Workspace's summary verb, which it is handed.
"""
