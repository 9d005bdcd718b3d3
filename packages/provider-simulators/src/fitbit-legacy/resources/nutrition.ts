import { type Period, datesBetween, parseDate, parseRange } from '../dates';
import { round, waterOf } from '../units';
import { type FitbitCaller, type FitbitResource, bad } from './context';

/**
 * Nutrition (facts §1.12): the food log of a day, the water log of a day, and the caloriesIn
 * / water time series (≤ 1095 days; values are strings).
 */

const PERIODS: Period[] = ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y'];

export const nutritionResources: FitbitResource[] = [
  {
    version: '1',
    pattern: /^foods\/log\/water\/date\/([^/]+)\.json$/,
    scope: 'nutrition',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      const logs = waterLogs(caller, parsed.date);
      const total = logs.reduce((sum, log) => sum + log.milliliters, 0);
      return {
        body: {
          summary: { water: waterOf(total, caller.units) },
          water: logs.map((log) => ({
            amount: waterOf(log.milliliters, caller.units),
            logId: log.logId,
          })),
        },
      };
    },
  },
  {
    version: '1',
    pattern: /^foods\/log\/(caloriesIn|water)\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'nutrition',
    handle: (caller, match) => {
      const resource = match[1] as 'caloriesIn' | 'water';
      const range = parseRange(match[2] ?? '', match[3] ?? '', {
        today: caller.today,
        memberSince: caller.account.memberSince,
        periods: PERIODS,
        maxDays: 1095,
      });
      if ('error' in range) return bad(range.error);
      const entries = datesBetween(range.start, range.end).map((date) => {
        if (resource === 'water') {
          const ml = waterLogs(caller, date).reduce((sum, log) => sum + log.milliliters, 0);
          return { dateTime: date, value: waterOf(ml, caller.units).toFixed(1) };
        }
        const kcal = foodLogs(caller, date).reduce((sum, log) => sum + log.food.calories, 0);
        return { dateTime: date, value: String(Math.round(kcal)) };
      });
      return { body: { [`foods-log-${resource}`]: entries } };
    },
  },
  {
    version: '1',
    pattern: /^foods\/log\/date\/([^/]+)\.json$/,
    scope: 'nutrition',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      const logs = foodLogs(caller, parsed.date);
      const totals = { calories: 0, carbs: 0, fat: 0, fiber: 0, protein: 0, sodium: 0 };
      for (const { food } of logs) {
        totals.calories += food.calories;
        totals.carbs += food.carbs;
        totals.fat += food.fat;
        totals.fiber += food.fiber;
        totals.protein += food.protein;
        totals.sodium += food.sodium;
      }
      const water = waterLogs(caller, parsed.date).reduce((sum, log) => sum + log.milliliters, 0);
      return {
        body: {
          foods: logs.map((log) => ({
            isFavorite: false,
            logDate: parsed.date,
            logId: log.logId,
            loggedFood: {
              accessLevel: 'PUBLIC',
              amount: log.food.amount,
              brand: '',
              calories: log.food.calories,
              foodId: log.food.foodId,
              locale: 'en_US',
              mealTypeId: log.mealTypeId,
              name: log.food.name,
              unit: { id: log.food.unitId, name: log.food.unitName, plural: log.food.unitPlural },
              units: [log.food.unitId, 304, 226],
            },
            nutritionalValues: {
              calories: log.food.calories,
              carbs: log.food.carbs,
              fat: log.food.fat,
              fiber: log.food.fiber,
              protein: log.food.protein,
              sodium: log.food.sodium,
            },
          })),
          goals: { calories: 2000 },
          summary: {
            calories: round(totals.calories, 1),
            carbs: round(totals.carbs, 2),
            fat: round(totals.fat, 2),
            fiber: round(totals.fiber, 2),
            protein: round(totals.protein, 2),
            sodium: round(totals.sodium, 1),
            water: waterOf(water, caller.units),
          },
        },
      };
    },
  },
];

function foodLogs(caller: FitbitCaller, date: string) {
  return caller.model.foods(date).filter((log) => log.utc <= caller.nowMs);
}

function waterLogs(caller: FitbitCaller, date: string) {
  return caller.model.water(date).filter((log) => log.utc <= caller.nowMs);
}
