"""Structured output through `emily-repl serve`, driven by OpenAI's official
Python client on SmolLM2 (.deps/llm.gguf): response_format json_schema
(raw schemas and the client's own Pydantic helper, chat.completions.parse)
and json_object constrain the output while it is sampled, so it always
parses and validates (the jsonschema package checks it), greedy and
sampled with a seed, streamed and not, and when max_tokens runs out first;
a schema the server cannot honour is a 400 naming the field."""
import json
import pathlib
import re
import subprocess

import jsonschema
import openai
import pydantic
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LLM = ROOT / ".deps" / "llm.gguf"


@pytest.fixture(scope="module")
def client(binary):
    if not LLM.exists():
        pytest.skip(f"{LLM} is missing: `make llm` fetches it")
    p = subprocess.Popen([str(binary), "serve", "--model", str(LLM), "--addr", "127.0.0.1:0"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "serving on http://" in line, (line, p.stderr.read() if p.poll() is not None else "")
    url = re.search(r"(http://[\d.]+:\d+)", line).group(1)
    yield openai.OpenAI(base_url=url + "/v1", api_key="none", max_retries=0, timeout=300)
    p.kill()
    p.wait()


def ask(text):
    return [{"role": "user", "content": text}]


CITY = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 20},
        "country": {"type": "string", "enum": ["France", "Italy", "Spain", "Other"]},
        "population_millions": {"type": "number", "minimum": 0},
        "capital": {"type": "boolean"},
    },
    "required": ["city", "country", "population_millions", "capital"],
    "additionalProperties": False,
}

TODO = {
    "type": "object",
    "$defs": {"Item": {"type": "object", "properties": {"task": {"type": "string", "maxLength": 24},
                                                        "done": {"type": "boolean"}},
                       "required": ["task", "done"], "additionalProperties": False}},
    "properties": {
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1, "maxItems": 2},
        "owner": {"anyOf": [{"type": "string", "maxLength": 12}, {"type": "null"}]},
    },
    "required": ["items", "owner"],
    "additionalProperties": False,
}


def schema_format(name, schema):
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


@pytest.mark.parametrize("name,schema,prompt", [
    ("city", CITY, "Tell me about Paris as JSON."),
    ("todo", TODO, "Make a short to-do list for a picnic, as JSON."),
    ("answer", {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"],
                "additionalProperties": False}, "What is 6 times 7? Answer in JSON."),
    ("order", {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                                                "qty": {"type": "integer", "minimum": 0}},
               "required": ["id", "qty"], "additionalProperties": False}, "Make up an order id and a quantity, as JSON."),
])
def test_json_schema_output_parses_and_validates(client, name, schema, prompt):
    r = client.chat.completions.create(model="llm", messages=ask(prompt), max_tokens=60, temperature=0,
                                       response_format=schema_format(name, schema))
    c = r.choices[0]
    value = json.loads(c.message.content)
    jsonschema.validate(value, schema)
    assert c.finish_reason == "stop", c  # the value closed before max_tokens: the model ended it


def test_sampled_with_seed_validates_and_reproduces(client):
    # Temperature 1 wanders: max_tokens cuts it short, and the budget
    # closes the value in time. Choice i has seed + i, so the lone choice
    # of the second request is the first choice of the first.
    kw = dict(model="llm", messages=ask("Describe Rome as JSON."), max_tokens=30, temperature=1.0, seed=5,
              response_format=schema_format("city", CITY))
    a = client.chat.completions.create(n=2, **kw)
    b = client.chat.completions.create(**kw)
    assert b.choices[0].message.content == a.choices[0].message.content
    assert a.choices[0].message.content != a.choices[1].message.content
    for c in a.choices:
        assert len(c.message.content) > 0
        jsonschema.validate(json.loads(c.message.content), CITY)


def test_streamed_json_schema_equals_whole(client):
    kw = dict(model="llm", messages=ask("Tell me about Madrid as JSON."), max_tokens=30, temperature=0,
              response_format=schema_format("city", CITY))
    whole = client.chat.completions.create(**kw).choices[0].message.content
    streamed = "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(stream=True, **kw)
                       if c.choices)
    assert streamed == whole
    jsonschema.validate(json.loads(streamed), CITY)


def test_max_tokens_runs_out_and_the_value_still_closes(client):
    r = client.chat.completions.create(model="llm", messages=ask("Write a long to-do list for a wedding, as JSON."),
                                       max_tokens=20, temperature=0, response_format=schema_format("todo", TODO))
    c = r.choices[0]
    assert r.usage.completion_tokens <= 20
    jsonschema.validate(json.loads(c.message.content), TODO)


class Pet(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=16)
    species: str = pydantic.Field(json_schema_extra={"enum": ["cat", "dog", "bird"]})
    age_years: int = pydantic.Field(ge=0)
    nickname: str | None


def test_openai_parse_helper_with_pydantic(client):
    # The client turns the model into a strict schema (additionalProperties
    # false, every field required, titles) and parses the reply back.
    r = client.chat.completions.parse(model="llm", messages=ask("Invent a pet and describe it as JSON."),
                                      max_tokens=60, temperature=0, response_format=Pet)
    pet = r.choices[0].message.parsed
    assert isinstance(pet, Pet) and pet.species in ("cat", "dog", "bird") and pet.age_years >= 0, r


def test_json_object_is_an_object(client):
    r = client.chat.completions.create(model="llm", messages=ask("Give the colours of the French flag as JSON."),
                                       max_tokens=40, temperature=0, response_format={"type": "json_object"})
    assert isinstance(json.loads(r.choices[0].message.content), dict)


@pytest.mark.parametrize("rf,param", [
    (schema_format("p", {"type": "integer", "maximum": 9}), "response_format.json_schema.schema"),
    (schema_format("p", {"type": "object", "properties": {"x": {"type": "numbr"}}}), "response_format.json_schema.schema"),
    ({"type": "json_schema"}, "response_format.json_schema"),
    ({"type": "yaml"}, "response_format.type"),
])
def test_bad_response_format_is_400_naming_the_field(client, rf, param):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="llm", messages=ask("hi"), max_tokens=2, response_format=rf)
    assert e.value.status_code == 400 and e.value.param == param, e.value.body
