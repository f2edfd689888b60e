// Types of the runtime's manifest validator, which scripts/compile-schemas.mjs generates beside this file.
/** The standalone validator of schemas/manifest.schema.json; `errors` holds the last call's failures. */
export declare const validate: ((value: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };
/** The sha256 (hex) of the schema bytes it was compiled from. */
export declare const schemaSha256: string;
