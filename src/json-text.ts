// An answer already written as JSON text, as its route's response schema says (a read whose
// JSON is written straight from the columns it reads, src/customers/customer-json.ts): the
// route sends it as it is, where an object would be serialised by the schema.
export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}
