/**
 * An item's size as DynamoDB bills it (the sum of its attributes' names and values; DynamoDB's
 * "Item sizes and formats"), from the item in DynamoDB's JSON, as requests and answers carry it.
 */
type AttributeValue = Record<string, unknown>;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A number: about one byte per two significant digits, plus one. */
const numberSize = (text: string): number => {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

export const attributeValueSize = (value: AttributeValue): number => {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return utf8(String(inner));
    case 'N':
      return numberSize(String(inner));
    case 'B':
      return Buffer.from(String(inner), 'base64').length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, text) => sum + utf8(text), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, text) => sum + numberSize(text), 0);
    case 'L':
      return 3 + (inner as AttributeValue[]).reduce((sum, element) => sum + 1 + attributeValueSize(element), 0);
    case 'M':
      return (
        3 +
        Object.entries(inner as Record<string, AttributeValue>).reduce(
          (sum, [name, element]) => sum + 1 + utf8(name) + attributeValueSize(element),
          0,
        )
      );
    default:
      return utf8(JSON.stringify(inner));
  }
};

export const itemSize = (item: Record<string, AttributeValue>): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + attributeValueSize(value), 0);
