"""The service's OpenAPI description: the handlers read raw bytes (for speed and for their own
clear errors), so FastAPI cannot infer the bodies; they are declared here. Served at
/openapi.json by lab/service/app.py and checked by tests/test_bad_input.py (schemathesis).
"""

from lab.service.batch_route import MAX_CUSTOMER_ID

JSON = "application/json"

CUSTOMER_ID = {"type": "integer", "minimum": 0, "maximum": MAX_CUSTOMER_ID}
PREDICT_BODY = {
    "type": "object",
    "properties": {"customer_id": CUSTOMER_ID},
    "required": ["customer_id"],
    "additionalProperties": False,
}
ERROR = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
SLOT_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
}
SLOT = {
    "type": "object",
    "required": ["customer_id", "probability", "error"],
    "properties": {
        "customer_id": {},
        "probability": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "error": {"anyOf": [SLOT_ERROR, {"type": "null"}]},
    },
}


def json_body(schema: dict, description: str) -> dict:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def predict_openapi() -> dict:
    answer_schema = {
        "type": "object",
        "required": ["customer_id", "probability"],
        "properties": {"customer_id": CUSTOMER_ID, "probability": {"type": "number"}},
    }
    return {
        "openapi_extra": {
            "requestBody": {"required": True, "content": {JSON: {"schema": PREDICT_BODY}}}
        },
        "responses": {
            200: json_body(answer_schema, "the customer's probability of buying"),
            404: json_body(ERROR, "unknown customer"),
            413: json_body(ERROR, "body too large"),
            422: json_body(ERROR, "malformed body"),
            500: json_body(ERROR, "the model call of this request's batch failed"),
        },
    }


def predict_batch_openapi(max_records: int) -> dict:
    records = {
        "type": "array",
        "maxItems": max_records,
        "description": 'each item should be {"customer_id": <integer>}; any other item '
        "gets an error object in its own output slot",
        "items": {},
    }
    body = {
        "type": "object",
        "properties": {"records": records},
        "required": ["records"],
        "additionalProperties": False,
    }
    answer_schema = {
        "type": "object",
        "required": ["predictions"],
        "properties": {"predictions": {"type": "array", "items": SLOT}},
    }
    return {
        "openapi_extra": {"requestBody": {"required": True, "content": {JSON: {"schema": body}}}},
        "responses": {
            200: json_body(answer_schema, "one slot per record, in input order"),
            413: json_body(ERROR, "body too large"),
            422: json_body(ERROR, 'not {"records": [...]}, or more records than the cap'),
        },
    }


def status_openapi(schema: dict) -> dict:
    return {"responses": {200: json_body(schema, "OK")}}
