import { valueText, valueTextSql, type ReadingDeviceRule } from '../reading-device';

/**
 * A Dexcom reading's device: the transmitter generation and the display device stored in its
 * value ("Dexcom G6 (display: iOS)"); the transmitter id is the row's data source, not a model.
 */
export const dexcomReadingDevice: ReadingDeviceRule = {
  brand: 'Dexcom',
  name: ({ valueJson }) => {
    const generation = valueText(valueJson, 'generation');
    const display = valueText(valueJson, 'displayDevice');
    return `Dexcom${generation ? ` ${generation.toUpperCase()}` : ''}${display ? ` (display: ${display})` : ''}`;
  },
  sql: `'Dexcom'
    || coalesce(' ' || upper(${valueTextSql('generation')}), '')
    || coalesce(' (display: ' || ${valueTextSql('displayDevice')} || ')', '')`,
};
