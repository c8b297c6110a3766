// Why the WHIP publisher failed, with its kind (docs/definitions.md#publisher-figures).
import { EXIT_ERROR, type PublisherErrorKind, WhipbenchError } from "../../core/errors.ts";

export class PublisherError extends WhipbenchError {
  override readonly name = "PublisherError";
  readonly code = "publisher";
  readonly exitStatus = EXIT_ERROR;
  readonly kind: PublisherErrorKind;
  constructor(kind: PublisherErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}
