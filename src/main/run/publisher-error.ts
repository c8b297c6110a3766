// Why the WHIP publisher failed, with its kind (docs/definitions.md#publisher-figures).
export class PublisherError extends Error {
  readonly kind: string;
  constructor(kind: string, message: string) {
    super(message);
    this.kind = kind;
  }
}
