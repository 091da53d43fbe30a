"""Request shapes as plain dataclasses, validated by pydantic only where a face needs it.

The core and the service take these dataclasses. A process that builds its own requests
(`plansight hook`, one-shot commands) never imports pydantic, whose import and model
building cost about 150 ms before a hook could answer. A face that reads a client's JSON
calls `Shape.validate(raw)`, which builds the shape's pydantic validator on first use:
the same strict, camelCase, unknown-keys-ignored rules the contract's models always had.

Everything here is read by pydantic through its `__get_pydantic_core_schema__` hook, and
imports pydantic only inside it, when a validator or a JSON Schema is being built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema
    from typing_extensions import Self


def camel(name: str) -> str:
    """A field's name on the wire: `active_form` -> `activeForm`."""
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


class WireShape:
    """Base of every request shape (a keyword-only dataclass).

    `named` holds the fields a request named, to tell a field sent as null from one left
    out (`update` changes only what it names): from the client's keys when validated
    (for the shapes that say `records_named`), from the keyword arguments given to
    `named_fields`, else every field not at its default."""

    # Wire names that are not the camelCase of the field's name (a field cannot be `list`).
    wire_names: ClassVar[dict[str, str]] = {}
    # Validation records the client's keys (a Python call per object validated: only
    # where a null and a field left out mean different things).
    records_named: ClassVar[bool] = False
    _adapter: ClassVar[Any] = None  # its pydantic TypeAdapter, made on first use

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        wire_names = cls.wire_names
        # Read by pydantic; the same rules as the contract's result models.
        cls.__pydantic_config__ = {  # type: ignore[attr-defined]
            "alias_generator": lambda name: wire_names.get(name, camel(name)),
            "populate_by_name": True,
            "extra": "ignore",
            "strict": True,  # a value of the wrong JSON type is refused, never coerced
        }
        cls._adapter = None

    @property
    def named(self) -> frozenset[str]:
        recorded: frozenset[str] | None = self.__dict__.get("_named")
        if recorded is not None:
            return recorded
        return frozenset(
            field.name
            for field in dataclasses.fields(self)  # type: ignore[arg-type]
            if getattr(self, field.name) != field.default
        )

    @classmethod
    def named_fields(cls, **values: Any) -> Self:
        """The shape with exactly `values` named (a null among them included)."""
        shape = cls(**values)
        shape.__dict__["_named"] = frozenset(values)
        return shape

    @classmethod
    def validate(cls, raw: Any) -> Self:
        """`raw` (decoded JSON) as this shape, or pydantic's ValidationError."""
        if cls.__dict__.get("_adapter") is None:
            from pydantic import TypeAdapter

            cls._adapter = TypeAdapter(cls)
        return cls._adapter.validate_python(raw)  # type: ignore[no-any-return]

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        from pydantic import TypeAdapter

        return TypeAdapter(cls).json_schema(by_alias=True)

    def to_wire(self) -> dict[str, Any]:
        """The fields by their wire names (shallow)."""
        return {
            self.wire_names.get(field.name, camel(field.name)): getattr(self, field.name)
            for field in dataclasses.fields(self)  # type: ignore[arg-type]
        }

    def sent(self) -> dict[str, Any]:
        """The named fields by their wire names (shallow): what a client would have sent."""
        return {
            self.wire_names.get(name, camel(name)): getattr(self, name)
            for name in (field.name for field in dataclasses.fields(self))  # type: ignore[arg-type]
            if name in self.named
        }

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        schema: Any = handler(source)
        if schema.get("type") == "dataclass":
            # Strict applies to the fields; the object itself comes as a JSON object.
            schema["strict"] = False
        if not cls.records_named:
            return schema  # type: ignore[no-any-return]
        by_wire_name = {
            cls.wire_names.get(field.name, camel(field.name)): field.name
            for field in dataclasses.fields(cls)  # type: ignore[arg-type]
        }
        fields = frozenset(by_wire_name.values())

        def record_named(raw: Any, validate: Callable[[Any], Any]) -> Any:
            shape = validate(raw)
            if isinstance(raw, dict):
                named = frozenset(by_wire_name.get(key, key) for key in raw)
                shape.__dict__["_named"] = named & fields
            return shape

        return core_schema.no_info_wrap_validator_function(record_named, schema)


@dataclasses.dataclass(frozen=True)
class Bounds:
    """Constraints on a field, read by pydantic: lengths, a lower bound, and a function the
    validated value goes through (a session name is cleaned)."""

    min_length: int | None = None
    max_length: int | None = None
    ge: int | None = None
    after: Callable[[Any], Any] | None = None

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        schema: Any = handler(source)
        for key in ("min_length", "max_length", "ge"):
            value = getattr(self, key)
            if value is not None:
                schema[key] = value
        if self.after is not None:
            return core_schema.no_info_after_validator_function(self.after, schema)
        return schema  # type: ignore[no-any-return]


@dataclasses.dataclass(frozen=True)
class Tagged:
    """A union told apart by the value of one field (`op`), read by pydantic."""

    field: str

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from typing import Annotated

        from pydantic import Discriminator

        return handler.generate_schema(Annotated[source, Discriminator(self.field)])


@dataclasses.dataclass(frozen=True)
class Labelled:
    """A union whose error locations name each member by its class name (`str`,
    `ItemSpec`), which is how the faces tell which member an error comes from."""

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from typing import get_args

        from pydantic_core import core_schema

        return core_schema.union_schema(
            [(handler.generate_schema(member), member.__name__) for member in get_args(source)]
        )
