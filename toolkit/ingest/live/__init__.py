"""Live sync through a messenger client (Telethon): the client (``client``), its messages
to ours (``convert``, ``media``) and the resumable fetch (``sync``)."""
