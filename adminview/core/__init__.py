"""The admin view's pure core: the view declared once (``schema``), what each source table's items imply
(``sources``), the anchors' one planner (``anchor``), the numbers' exact sums (``numbers``), what a stream
record must carry (``records``) and how attributes are read out of plain items (``values``). No I/O, and no
DynamoDB JSON: what it reads and builds are plain values, decoded and encoded once by whoever reads or writes them.

May import: the standard library and the source tables' key modules (``shop.keys``, ``returns.keys``, which reach
nothing but ``domain``); never boto3, botocore, PynamoDB, ``dynamo``, or another room of the view (``sync``,
``reads``, ``repair``).
"""
