"""The admin view's pure core: the view declared once (``schema``), what each source table's items imply
(``sources``), the anchors' one planner (``anchor``), the numbers' exact sums (``numbers``) and what a stream
record must carry (``records``). No I/O.

May import: the standard library, the source tables' key modules (``shop.keys``, ``returns.keys``) and
``dynamo.ddb_json`` (standard library only: DynamoDB JSON read and built by type tag); never boto3, botocore,
PynamoDB, the rest of ``dynamo``, or another room of the view (``sync``, ``reads``, ``repair``).
"""
